import {
  widgetKindSchema,
  type PlatformConnectionInput,
  type ProgramSettingsInput,
  type ReferralProgramInput,
} from "@loyalty/shared-types";
import type { Command } from "commander";
import { AppError } from "../../errors.js";
import type { Runtime } from "../../runtime.js";
import type { CliContext, JsonOption } from "../context.js";

/**
 * `<area> set --store <reference>`: sets part of a store's configuration from the JSON
 * document on stdin (secrets stay out of shell history and `ps`), validated as the back-office
 * validates it; errors name the fields.
 */
function setFromStdin<R>(
  cli: CliContext,
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
    cli.action(async (_options: unknown, self: Command) => {
      const options = self.optsWithGlobals<JsonOption & { store: string; kind?: string }>();
      const document = await readJson(cli);
      const result = await cli.withRuntime(async (runtime) => {
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
      cli.print(options, result, human(result));
    }),
  );
}

/** The JSON document piped to the command. */
async function readJson(cli: CliContext): Promise<unknown> {
  const text = await cli.readPiped("JSON document");
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("validation-failed", "The input is not a JSON document.");
  }
}

/** `platform set`, `widget set` and `referral-program set`. */
export function storeSettingsCommands(program: Command, cli: CliContext): void {
  setFromStdin(
    cli,
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
    cli,
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
    cli,
    program.command("referral-program").description("configure a store's referral programme"),
    'set the referral programme from JSON on stdin: {"referrerBonus":200,"refereeVoucher":{…},"landingUrl":…}',
    async (runtime, storeId, document) => {
      await runtime.context.services.referrals.saveProgram(
        storeId,
        document as ReferralProgramInput,
      );
      return { saved: true };
    },
    () => "The referral programme is saved.",
  );

  setFromStdin(
    cli,
    program
      .command("program-settings")
      .description("set how a store's points programme runs (pending period)"),
    'set the programme settings from JSON on stdin: {"pendingDays":14}; a setting left out goes back to its default',
    (runtime, storeId, document) =>
      runtime.context.services.program.saveSettings(storeId, document as ProgramSettingsInput),
    (settings) =>
      settings.pendingDays === 0
        ? "The programme settings are saved: points can be spent as soon as they are earned."
        : `The programme settings are saved: an order's points stay pending ${settings.pendingDays} days from the order's date.`,
  );
}
