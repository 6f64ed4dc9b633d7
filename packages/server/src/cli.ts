#!/usr/bin/env node
import { randomBytes } from "node:crypto";
import {
  widgetKindSchema,
  type PlatformConnectionInput,
  type ReferralProgramInput,
} from "@loyalty/shared-types";
import { Command } from "commander";
import { pino, type Logger } from "pino";
import { ConfigError, loadConfig, type Config } from "./config.js";
import { startEmbeddedPostgres } from "./db/embedded.js";
import { DatabaseNotMigratedError, migrate } from "./db/migrate.js";
import { AppError } from "./errors.js";
import { createLogger } from "./http/logger.js";
import { DEMO_DOMAIN } from "./modules/demo/demo.service.js";
import { keyId } from "./modules/stores/api-keys.service.js";
import { taskList } from "./jobs/tasks.js";
import { startWorkers } from "./jobs/worker.js";
import type { ApiKeyRow } from "./modules/stores/api-keys.repository.js";
import { openRuntime, type Runtime } from "./runtime.js";
import { listenForStopSignals } from "./signals.js";

/**
 * `loyalty`: the operators' command-line tool. Every command prints a human summary, or with
 * --json one JSON document on stdout; failures print a message on stderr and exit non-zero.
 */

interface JsonOption {
  json?: boolean;
}

function print(options: JsonOption, data: unknown, human: string): void {
  process.stdout.write(options.json ? `${JSON.stringify(data, null, 2)}\n` : `${human}\n`);
}

function keyView(row: ApiKeyRow) {
  return {
    id: keyId(row.prefix),
    store: row.storeReference,
    label: row.label,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
    active: row.revokedAt === null,
  };
}

function commandSetup(): { config: Config; logger: Logger } {
  const config = loadConfig();
  // Logs go to stderr so that stdout holds only the command's output.
  const logger = createLogger(process.env["LOG_LEVEL"] ?? "error", pino.destination(2));
  return { config, logger };
}

/**
 * Opens the database (DATABASE_URL or the embedded one), runs `work`, always closes. Pending
 * migrations are applied first (MIGRATE_ON_START), or refused with a pointer to `migrate`.
 */
async function withRuntime<T>(work: (runtime: Runtime) => Promise<T>): Promise<T> {
  const { config, logger } = commandSetup();
  // A cluster a killed server left running is the next server's to stop, not a command's.
  const runtime = await openRuntime(config, logger, { adoptEmbedded: false });
  try {
    return await work(runtime);
  } finally {
    await runtime.close();
  }
}

/**
 * The database alone, for `migrate`: the services' start-up checks read tables that the
 * migrations it runs create.
 */
async function withDatabase<T>(
  work: (databaseUrl: string, logger: Logger) => Promise<T>,
): Promise<T> {
  const { config, logger } = commandSetup();
  if (config.databaseUrl) return work(config.databaseUrl, logger);
  const embedded = await startEmbeddedPostgres(
    config.dataDir,
    config.embeddedPostgresPort,
    logger,
    { adopt: false },
  );
  try {
    return await work(embedded.url, logger);
  } finally {
    await embedded.stop();
  }
}

function fail(error: unknown, json: boolean): never {
  const message =
    error instanceof AppError && error.issues
      ? error.issues.map((issue) => `--${issue.pointer.slice(1)}: ${issue.message}`).join("\n")
      : error instanceof AppError ||
          error instanceof ConfigError ||
          error instanceof DatabaseNotMigratedError
        ? error.message
        : `Unexpected error: ${error instanceof Error ? error.message : String(error)}`;
  const reason = error instanceof AppError ? error.reason : undefined;
  process.stderr.write(
    json
      ? `${JSON.stringify({ error: { message, ...(reason ? { reason } : {}) } })}\n`
      : `error: ${message}\n`,
  );
  process.exit(1);
}

function action<A extends unknown[]>(handler: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    const command = args[args.length - 1] as Command;
    try {
      await handler(...args);
    } catch (error) {
      fail(error, Boolean(command.optsWithGlobals<JsonOption>().json));
    }
  };
}

const program = new Command()
  .name("loyalty")
  .description(
    "Operate a Loyalty Points API server: database, admins, stores, API keys, platforms, widgets, referral programmes, demo data.",
  )
  .option("--json", "print the result as JSON")
  .showHelpAfterError();

program
  .command("migrate")
  .description("apply pending database migrations")
  .action(
    action(async (_options: JsonOption, command: Command) => {
      const options = command.optsWithGlobals<JsonOption>();
      const applied = await withDatabase(migrate);
      print(
        options,
        { applied },
        applied.length
          ? `Applied ${applied.length} migration(s):\n  ${applied.join("\n  ")}`
          : "The database is up to date.",
      );
    }),
  );

const store = program.command("store").description("manage stores");
store
  .command("create")
  .description("declare a store")
  .requiredOption("--domain <origin>", "the store's origin, such as https://shop.example")
  .option("--reference <reference>", "the store reference (generated when omitted)")
  .option("--name <name>", "display name")
  .option("--language <language>", "default language", "en")
  .option("--currency <currency>", "currency (ISO 4217)", "EUR")
  .action(
    action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<
        JsonOption & {
          domain: string;
          reference?: string;
          name?: string;
          language: string;
          currency: string;
        }
      >();
      const created = await withRuntime((runtime) =>
        runtime.context.services.stores.create({
          domain: options.domain,
          reference: options.reference,
          name: options.name,
          language: options.language,
          currency: options.currency,
        }),
      );
      const view = {
        reference: created.reference,
        domain: created.domain,
        name: created.name,
        language: created.language,
        currency: created.currency,
      };
      print(
        options,
        view,
        `Store created.\n  reference: ${view.reference}   (secret: never put it in a page)\n  domain:    ${view.domain}\nNext: loyalty key create --store ${view.reference}`,
      );
    }),
  );

store
  .command("list")
  .description("list the stores (their reference and domain)")
  .action(
    action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<JsonOption>();
      const rows = await withRuntime((runtime) => runtime.context.services.stores.list());
      const views = rows.map((row) => ({
        reference: row.reference,
        domain: row.domain,
        name: row.name,
        language: row.language,
        currency: row.currency,
      }));
      print(
        options,
        views,
        views.length
          ? views.map((view) => `${view.reference}  ${view.domain}  ${view.name}`).join("\n")
          : "No store yet: loyalty store create --domain <origin>",
      );
    }),
  );

const key = program.command("key").description("manage API keys");
key
  .command("create")
  .description("create an API key for a store; the key is printed once")
  .requiredOption("--store <reference>", "the store reference")
  .option("--label <label>", "what the key is for", "")
  .action(
    action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<JsonOption & { store: string; label: string }>();
      const { key: plain, row } = await withRuntime((runtime) =>
        runtime.context.services.apiKeys.create(options.store, options.label),
      );
      print(
        options,
        { ...keyView(row), key: plain },
        `API key created for store ${row.storeReference} (id ${keyId(row.prefix)}).\n  ${plain}\nIt is shown once: store it in your secrets manager now.`,
      );
    }),
  );
key
  .command("list")
  .description("list API keys (never their secret part)")
  .option("--store <reference>", "only this store's keys")
  .action(
    action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<JsonOption & { store?: string }>();
      const rows = await withRuntime((runtime) =>
        runtime.context.services.apiKeys.list(options.store),
      );
      const views = rows.map(keyView);
      print(
        options,
        views,
        views.length
          ? views
              .map(
                (k) =>
                  `${k.id}  ${k.store}  ${k.active ? "active " : "revoked"}  ${k.createdAt}  ${k.label}`,
              )
              .join("\n")
          : "No API key.",
      );
    }),
  );
key
  .command("revoke")
  .description("revoke an API key at once (by its id, lk_xxxxxxxxxx)")
  .argument("<id>", "the key id shown by key list, or the whole key")
  .action(
    action(async (id: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<JsonOption>();
      const row = await withRuntime((runtime) => runtime.context.services.apiKeys.revoke(id));
      print(
        options,
        keyView(row),
        `API key ${keyId(row.prefix)} of store ${row.storeReference} is revoked.`,
      );
    }),
  );

/** The JSON document piped to the command: secrets stay out of shell history and `ps`. */
async function readStdinJson(): Promise<unknown> {
  if (process.stdin.isTTY) {
    throw new AppError("validation-failed", "Pipe the JSON document to the command's input.");
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new AppError("validation-failed", "The input is not a JSON document.");
  }
}

/**
 * `<area> set --store <reference>`: sets part of a store's configuration from the JSON
 * document on stdin, validated as the back-office validates it; errors name the fields.
 */
function setFromStdin<R>(
  area: Command,
  description: string,
  apply: (runtime: Runtime, storeId: number, document: unknown, kind: string) => Promise<R>,
  human: (result: R) => string,
  kindOption?: { flags: string; description: string },
): void {
  const command = area
    .command("set")
    .description(description)
    .requiredOption("--store <reference>", "the store reference");
  if (kindOption) command.requiredOption(kindOption.flags, kindOption.description);
  command.action(
    action(async (_options: unknown, self: Command) => {
      const options = self.optsWithGlobals<JsonOption & { store: string; kind?: string }>();
      const document = await readStdinJson();
      const result = await withRuntime(async (runtime) => {
        const found = await runtime.context.services.stores.findByReference(options.store);
        if (!found) throw new AppError("not-found", `No store has the reference ${options.store}.`);
        try {
          return await apply(runtime, found.id, document, options.kind ?? "");
        } catch (error) {
          if (!(error instanceof AppError) || !error.issues) throw error;
          const where = error.issues.map((issue) => `${issue.pointer || "/"}: ${issue.message}`);
          throw new AppError(error.reason, `The document is invalid:\n  ${where.join("\n  ")}`);
        }
      });
      print(options, result, human(result));
    }),
  );
}

setFromStdin(
  program.command("platform").description("connect a store to its e-commerce platform"),
  'set the store\'s platform connection from JSON on stdin: {"platform":"woocommerce","url":…,"consumerKey":…,"consumerSecret":…}, shopify (url, accessToken), prestashop (url, webserviceKey) or sandbox',
  (runtime, storeId, document) =>
    // The operator's own tool may save a platform on the service's network; the service then
    // connects to it only where ALLOW_PRIVATE_URLS allows (every connection's address is checked).
    runtime.context.services.platforms.connect(storeId, document as PlatformConnectionInput, {
      allowPrivateUrls: true,
    }),
  (summary) =>
    `The store now runs on ${summary.platform}${summary.url ? ` at ${summary.url}` : ""}. Its credentials are stored encrypted and are never shown again.`,
);

setFromStdin(
  program.command("widget").description("configure a store's storefront widgets"),
  "set a widget's configuration from JSON on stdin",
  async (runtime, storeId, document, kind) => {
    const parsed = widgetKindSchema.safeParse(kind);
    if (!parsed.success) {
      throw new AppError(
        "validation-failed",
        `--kind must be one of ${widgetKindSchema.options.join(", ")}.`,
      );
    }
    await runtime.context.services.widgets.save(storeId, parsed.data, document);
    return { kind: parsed.data };
  },
  ({ kind }) => `The ${kind} widget configuration is saved; every server serves it at once.`,
  { flags: "--kind <kind>", description: "cart, product-points or program-presentation" },
);

setFromStdin(
  program.command("referral-program").description("configure a store's referral programme"),
  'set the referral programme from JSON on stdin: {"referrerBonus":200,"refereeVoucher":{…},"landingUrl":…}',
  async (runtime, storeId, document) => {
    await runtime.context.services.referrals.saveProgram(storeId, document as ReferralProgramInput);
    return { saved: true };
  },
  () => "The referral programme is saved.",
);

/** The first line of the command's input (a password piped with --password-stdin). */
async function readStdinLine(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new AppError("validation-failed", "Pipe the password to the command's input.");
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8").split(/\r?\n/)[0] ?? "";
}

const admin = program
  .command("admin")
  .description("manage back-office admins (they log in with POST /admin/token)");
admin
  .command("create")
  .description(
    "create an admin of the whole service, or of one store with --store; the password is generated and printed once, or read from the input with --password-stdin",
  )
  .requiredOption("--email <email>", "the admin's email, their login")
  .option("--store <reference>", "limit the admin to this store")
  .option("--password-stdin", "read the password from the first line of the input")
  .action(
    action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<
        JsonOption & { email: string; store?: string; passwordStdin?: boolean }
      >();
      const piped = options.passwordStdin ? await readStdinLine() : undefined;
      const password = piped ?? randomBytes(18).toString("base64url");
      const created = await withRuntime((runtime) =>
        runtime.context.services.adminAuth.createAdmin({
          email: options.email,
          password,
          ...(options.store === undefined ? {} : { storeReference: options.store }),
        }),
      );
      const view = {
        id: created.id,
        email: created.email,
        store: created.storeReference,
        ...(piped === undefined ? { password } : {}),
      };
      print(
        options,
        view,
        `Admin ${view.email} created for ${view.store ? `store ${view.store}` : "the whole service"}.` +
          (piped === undefined
            ? `\n  password: ${password}\nIt is shown once: store it in your password manager now.`
            : ""),
      );
    }),
  );
admin
  .command("list")
  .description("list admins (never their password)")
  .action(
    action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<JsonOption>();
      const rows = await withRuntime((runtime) => runtime.context.services.adminAuth.listAdmins());
      const views = rows.map((row) => ({
        id: row.id,
        email: row.email,
        storeId: row.storeId,
        createdAt: row.createdAt.toISOString(),
        disabledAt: row.disabledAt?.toISOString() ?? null,
      }));
      print(
        options,
        views,
        views.length
          ? views
              .map(
                (a) =>
                  `${a.email}  ${a.storeId === null ? "service" : `store ${a.storeId}`}  ${a.disabledAt ? "disabled" : "active"}`,
              )
              .join("\n")
          : "No admin.",
      );
    }),
  );
admin
  .command("disable")
  .description("disable an admin at once: their tokens stop working, even unexpired ones")
  .argument("<email>", "the admin's email")
  .action(
    action(async (email: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<JsonOption>();
      const row = await withRuntime((runtime) =>
        runtime.context.services.adminAuth.disableAdmin(email),
      );
      print(
        options,
        { email: row.email, disabledAt: row.disabledAt?.toISOString() ?? null },
        `Admin ${row.email} is disabled.`,
      );
    }),
  );

program
  .command("demo")
  .description("load a demo store with rules, clubs, rewards and widget configurations")
  .option("--domain <origin>", "the demo store's origin", DEMO_DOMAIN)
  .action(
    action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals<JsonOption & { domain: string }>();
      const result = await withRuntime((runtime) =>
        runtime.context.services.demo.load(options.domain),
      );
      const view = {
        store: {
          reference: result.store.reference,
          domain: result.store.domain,
          name: result.store.name,
        },
        key: { id: result.keyId, key: result.apiKey },
      };
      print(
        options,
        view,
        `Demo store loaded: ${view.store.name}\n  domain:    ${view.store.domain}\n  reference: ${view.store.reference}\n  API key:   ${view.key.key}  (shown once)`,
      );
    }),
  );

program
  .command("worker")
  .description(
    "run the job workers alone (orders, refunds, emails, webhooks, claim reconciliation, expired idempotency keys), for API servers started with WORKERS=off",
  )
  .action(
    action(async () => {
      const config = loadConfig();
      const logger = createLogger(config.logLevel);
      const signals = listenForStopSignals();
      const runtime = await openRuntime(config, logger);
      const workers = signals.pending
        ? undefined
        : await startWorkers(
            runtime.context,
            runtime.databaseUrl,
            taskList(runtime.context.services),
          );
      // Jobs in progress finish (or are handed back to the queue) before the process exits.
      let stopping = false;
      signals.onStop(async (signal) => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, "stopping workers");
        await workers?.stop();
        await runtime.close();
        process.exit(0);
      });
      if (signals.pending) return;
      process.stdout.write(`Loyalty workers running (concurrency ${config.workerConcurrency})\n`);
    }),
  );

await program.parseAsync(process.argv);
