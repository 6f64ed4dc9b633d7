import { Command } from "commander";
import { adminCommands } from "./commands/admin.js";
import { demoCommand } from "./commands/demo.js";
import { migrateCommand } from "./commands/migrate.js";
import { storeSettingsCommands } from "./commands/store-settings.js";
import { storeCommands } from "./commands/stores.js";
import { workerCommand } from "./commands/worker.js";
import { cliContext, type CliDeps } from "./context.js";

export type { CliDeps, Output } from "./context.js";

/**
 * `loyalty`: the operators' command-line tool. Every command prints a human summary, or with
 * --json one JSON document on stdout; failures print a message on stderr and end the program
 * with a non-zero code. No command ends the process itself (but `worker`, on its stop signal):
 * parseAsync rejects with a CommanderError carrying the exit code, which the entry (or a test)
 * turns into the process's exit.
 */
export function createProgram(deps: CliDeps): Command {
  const program = new Command()
    .name("loyalty")
    .description(
      "Operate a Loyalty Points API server: database, admins, stores, API keys, platforms, widgets, referral programmes, demo data.",
    )
    .option("--json", "print the result as JSON")
    .showHelpAfterError()
    .configureOutput({
      writeOut: (text) => deps.stdout.write(text),
      writeErr: (text) => deps.stderr.write(text),
    })
    // Before the commands are added: they inherit it.
    .exitOverride();
  const cli = cliContext(deps);
  migrateCommand(program, cli);
  storeCommands(program, cli);
  storeSettingsCommands(program, cli);
  adminCommands(program, cli);
  demoCommand(program, cli);
  workerCommand(program, cli);
  return program;
}
