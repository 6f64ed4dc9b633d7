import type { Command } from "commander";
import { migrate } from "../../db/migrate.js";
import type { CliContext, JsonOption } from "../context.js";

export function migrateCommand(program: Command, cli: CliContext): void {
  program
    .command("migrate")
    .description("apply pending database migrations")
    .action(
      cli.action(async (_options: JsonOption, command: Command) => {
        const options = command.optsWithGlobals<JsonOption>();
        const applied = await cli.withDatabase(migrate);
        cli.print(
          options,
          { applied },
          applied.length
            ? `Applied ${applied.length} migration(s):\n  ${applied.join("\n  ")}`
            : "The database is up to date.",
        );
      }),
    );
}
