import type { Command } from "commander";
import { DEMO_DOMAIN } from "../../modules/demo/demo.service.js";
import type { CliContext, JsonOption } from "../context.js";

export function demoCommand(program: Command, cli: CliContext): void {
  program
    .command("demo")
    .description("load a demo store with rules, clubs, rewards and widget configurations")
    .option("--domain <origin>", "the demo store's origin", DEMO_DOMAIN)
    .action(
      cli.action(async (_options: unknown, command: Command) => {
        const options = command.optsWithGlobals<JsonOption & { domain: string }>();
        const result = await cli.withRuntime((runtime) =>
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
        cli.print(
          options,
          view,
          `Demo store loaded: ${view.store.name}\n  domain:    ${view.store.domain}\n  reference: ${view.store.reference}\n  API key:   ${view.key.key}  (shown once)`,
        );
      }),
    );
}
