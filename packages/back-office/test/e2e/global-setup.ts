import type { TestProject } from "vitest/node";
import { startServer } from "./server.js";

/**
 * The real API server for the walk (server.ts): it serves the back-office built by
 * `vite build` (`dist/`), under its CSP. The tests get its address and its environment, to run
 * the CLI against the same database.
 */
export default async function setup(project: TestProject) {
  const server = await startServer();
  project.provide("server", { url: server.url, env: server.env });
  return server.stop;
}

declare module "vitest" {
  export interface ProvidedContext {
    server: { url: string; env: Record<string, string> };
  }
}
