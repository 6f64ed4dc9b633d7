import type { BrowserCommand } from "vitest/node";
import { runSourceToEnd } from "./global-setup.js";

export interface SeededStore {
  /** The widget attributes the store's server renders for customer 42, from the SDK. */
  attributes: Record<string, string>;
  /** The points customer 42 holds. */
  balance: number;
}

/** Runs in Node, called from the test page: a demo store for the page's origin (seed-store.ts). */
const seedStore: BrowserCommand<[origin: string]> = async (_context, origin) => {
  const env = JSON.parse(process.env["LOYALTY_E2E_ENV"] ?? "{}") as NodeJS.ProcessEnv;
  const output = await runSourceToEnd("packages/widgets/test/e2e/seed-store.ts", [origin], env);
  return JSON.parse(output) as SeededStore;
};

export const e2eCommands = { seedStore };

declare module "vitest/browser" {
  interface BrowserCommands {
    seedStore: (origin: string) => Promise<SeededStore>;
  }
}
