import type { BrowserCommand } from "vitest/node";
import { runSourceToEnd } from "./global-setup.js";

/** The widget attributes a store's server renders (the SDK's): its own, and a customer's. */
export type WidgetAttributes = Record<string, string>;

export interface SeededStore {
  /** The attributes of a page seen by a visitor. */
  visitor: WidgetAttributes;
  /**
   * Customers 42, 43 and 44 after one paid order each (640 €, 700 € and 1 500 €), by id: their
   * attributes and the points they hold.
   */
  customers: Record<"42" | "43" | "44", { attributes: WidgetAttributes; balance: number }>;
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
