import type { Command } from "commander";
import type { ApiKeyRow } from "../../modules/stores/api-keys.repository.js";
import { keyId } from "../../modules/stores/api-keys.service.js";
import type { CliContext, JsonOption } from "../context.js";

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

/** `store create|list` and `key create|list|revoke`. */
export function storeCommands(program: Command, cli: CliContext): void {
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
      cli.action(async (_options: unknown, command: Command) => {
        const options = command.optsWithGlobals<
          JsonOption & {
            domain: string;
            reference?: string;
            name?: string;
            language: string;
            currency: string;
          }
        >();
        const created = await cli.withRuntime((runtime) =>
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
        cli.print(
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
      cli.action(async (_options: unknown, command: Command) => {
        const options = command.optsWithGlobals<JsonOption>();
        const rows = await cli.withRuntime((runtime) => runtime.context.services.stores.list());
        const views = rows.map((row) => ({
          reference: row.reference,
          domain: row.domain,
          name: row.name,
          language: row.language,
          currency: row.currency,
        }));
        cli.print(
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
      cli.action(async (_options: unknown, command: Command) => {
        const options = command.optsWithGlobals<JsonOption & { store: string; label: string }>();
        const { key: plain, row } = await cli.withRuntime((runtime) =>
          runtime.context.services.apiKeys.create(options.store, options.label),
        );
        cli.print(
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
      cli.action(async (_options: unknown, command: Command) => {
        const options = command.optsWithGlobals<JsonOption & { store?: string }>();
        const rows = await cli.withRuntime((runtime) =>
          runtime.context.services.apiKeys.list(options.store),
        );
        const views = rows.map(keyView);
        cli.print(
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
      cli.action(async (id: string, _options: unknown, command: Command) => {
        const options = command.optsWithGlobals<JsonOption>();
        const row = await cli.withRuntime((runtime) => runtime.context.services.apiKeys.revoke(id));
        cli.print(
          options,
          keyView(row),
          `API key ${keyId(row.prefix)} of store ${row.storeReference} is revoked.`,
        );
      }),
    );
}
