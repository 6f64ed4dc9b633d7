import { CommanderError, type Command } from "commander";
import type { Logger } from "pino";
import { ConfigError, loadConfig, type Config } from "../config.js";
import { DatabaseNotMigratedError } from "../db/migrate.js";
import { AppError } from "../errors.js";
import { createLogger } from "../http/logger.js";
import type { openDatabase, openRuntime, Runtime } from "../runtime.js";

/** Where the program writes text: the process's stdout or stderr, or a test's capture. */
export interface Output {
  write(text: string): unknown;
}

/** What the program takes from its process; tests give their own to run it in theirs. */
export interface CliDeps {
  /** The configuration's variables, and LOG_LEVEL. */
  env: NodeJS.ProcessEnv;
  stdout: Output;
  /** Error messages, and the commands' logs. */
  stderr: Output;
  /** The whole standard input, or undefined when nothing is piped to it (a terminal). */
  readInput(): Promise<string | undefined>;
  openRuntime: typeof openRuntime;
  openDatabase: typeof openDatabase;
}

export interface JsonOption {
  json?: boolean;
}

/** What every command area is given: its process, and the ways all commands answer. */
export interface CliContext {
  deps: CliDeps;
  /** The human summary, or with --json one JSON document, on stdout. */
  print(options: JsonOption, data: unknown, human: string): void;
  /** Runs a command's handler; a failure is printed on stderr and ends the program with 1. */
  action<A extends unknown[]>(
    handler: (...args: A) => Promise<void>,
  ): (...args: A) => Promise<void>;
  /**
   * Opens the database (DATABASE_URL or the embedded one), runs `work`, always closes. Pending
   * migrations are applied first (MIGRATE_ON_START), or refused with a pointer to `migrate`.
   */
  withRuntime<T>(work: (runtime: Runtime) => Promise<T>): Promise<T>;
  /**
   * The database alone, for `migrate`: the services' start-up checks read tables that the
   * migrations it runs create.
   */
  withDatabase<T>(work: (databaseUrl: string, logger: Logger) => Promise<T>): Promise<T>;
  /** The piped input; `what` names it in the message when nothing is piped. */
  readPiped(what: string): Promise<string>;
}

export function cliContext(deps: CliDeps): CliContext {
  const setup = (): { config: Config; logger: Logger } => {
    const config = loadConfig(deps.env);
    // Logs go to stderr so that stdout holds only the command's output.
    const logger = createLogger(deps.env["LOG_LEVEL"] ?? "error", deps.stderr);
    return { config, logger };
  };

  const fail = (error: unknown, json: boolean): never => {
    const message =
      error instanceof AppError && error.issues
        ? error.issues.map((issue) => `--${issue.pointer.slice(1)}: ${issue.message}`).join("\n")
        : error instanceof AppError ||
            error instanceof ConfigError ||
            error instanceof DatabaseNotMigratedError
          ? error.message
          : `Unexpected error: ${error instanceof Error ? error.message : String(error)}`;
    const reason = error instanceof AppError ? error.reason : undefined;
    deps.stderr.write(
      json
        ? `${JSON.stringify({ error: { message, ...(reason ? { reason } : {}) } })}\n`
        : `error: ${message}\n`,
    );
    // Thrown as commander throws its own usage errors: the entry exits with the code.
    throw new CommanderError(1, "loyalty.failed", message);
  };

  return {
    deps,
    print: (options, data, human) => {
      deps.stdout.write(options.json ? `${JSON.stringify(data, null, 2)}\n` : `${human}\n`);
    },
    action:
      (handler) =>
      async (...args) => {
        const command = args[args.length - 1] as Command;
        try {
          await handler(...args);
        } catch (error) {
          fail(error, Boolean(command.optsWithGlobals<JsonOption>().json));
        }
      },
    withRuntime: async (work) => {
      const { config, logger } = setup();
      // A cluster a killed server left running is the next server's to stop, not a command's.
      const runtime = await deps.openRuntime(config, logger, { adoptEmbedded: false });
      try {
        return await work(runtime);
      } finally {
        await runtime.close();
      }
    },
    withDatabase: async (work) => {
      const { config, logger } = setup();
      const database = await deps.openDatabase(config, logger, { adoptEmbedded: false });
      try {
        return await work(database.url, logger);
      } finally {
        await database.close();
      }
    },
    readPiped: async (what) => {
      const input = await deps.readInput();
      if (input === undefined) {
        throw new AppError("validation-failed", `Pipe the ${what} to the command's input.`);
      }
      return input;
    },
  };
}
