import { randomBytes } from "node:crypto";
import type { Command } from "commander";
import type { CliContext, JsonOption } from "../context.js";

/** `admin create|list|disable`: the back-office's admins. */
export function adminCommands(program: Command, cli: CliContext): void {
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
      cli.action(async (_options: unknown, command: Command) => {
        const options = command.optsWithGlobals<
          JsonOption & { email: string; store?: string; passwordStdin?: boolean }
        >();
        // The first line of the input: a password piped stays out of shell history and `ps`.
        const piped = options.passwordStdin
          ? ((await cli.readPiped("password")).split(/\r?\n/)[0] ?? "")
          : undefined;
        const password = piped ?? randomBytes(18).toString("base64url");
        const created = await cli.withRuntime((runtime) =>
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
        cli.print(
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
      cli.action(async (_options: unknown, command: Command) => {
        const options = command.optsWithGlobals<JsonOption>();
        const rows = await cli.withRuntime((runtime) =>
          runtime.context.services.adminAuth.listAdmins(),
        );
        const views = rows.map((row) => ({
          id: row.id,
          email: row.email,
          storeId: row.storeId,
          createdAt: row.createdAt.toISOString(),
          disabledAt: row.disabledAt?.toISOString() ?? null,
        }));
        cli.print(
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
      cli.action(async (email: string, _options: unknown, command: Command) => {
        const options = command.optsWithGlobals<JsonOption>();
        const row = await cli.withRuntime((runtime) =>
          runtime.context.services.adminAuth.disableAdmin(email),
        );
        cli.print(
          options,
          { email: row.email, disabledAt: row.disabledAt?.toISOString() ?? null },
          `Admin ${row.email} is disabled.`,
        );
      }),
    );
}
