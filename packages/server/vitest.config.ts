import { fileURLToPath } from "node:url";
import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

/**
 * The files that start processes (the CLI, the server, its worker, PostgreSQL), break things on
 * purpose, or wait on real timeouts: the `slow` project. `pnpm test:fast` leaves them out.
 */
const SLOW = [
  "test/cli.test.ts",
  "test/cli-admin.test.ts",
  "test/claims-crash.test.ts",
  "test/embedded.test.ts",
  "test/faults.test.ts",
  "test/http-server.test.ts",
  "test/metrics.test.ts",
  "test/order-processing.test.ts",
  "test/production-deploy.test.ts",
  "test/server-process.test.ts",
  "test/tracing.test.ts",
];
/** Files that measure latencies: the `slow-alone` project runs them after the others, alone. */
const ALONE = ["test/hostile-traffic.test.ts"];

const project = (name: string, test: TestProjectInlineConfiguration["test"]) =>
  ({
    resolve: {
      alias: {
        "@loyalty/shared-types": fileURLToPath(
          new URL("../shared-types/src/index.ts", import.meta.url),
        ),
        "@loyalty/node-sdk": fileURLToPath(new URL("../node-sdk/src/index.ts", import.meta.url)),
      },
    },
    test: {
      name,
      // Each file gets its own database, so files run in parallel safely.
      pool: "forks",
      testTimeout: 20_000,
      hookTimeout: 60_000,
      ...test,
    },
  }) satisfies TestProjectInlineConfiguration;

/**
 * `vitest run` runs every project, as `pnpm test` and CI do. `--mode fast` (`pnpm test:fast`)
 * also lowers bad-input.test.ts's generated cases per property, unless BAD_INPUT_RUNS is set.
 */
export default defineConfig(({ mode }) => ({
  test: {
    // In the root config rather than the projects': one template database serves them all.
    globalSetup: ["test/support/global-setup.ts"],
    // Vitest's default on a two-core machine is one file at a time, though the files mostly
    // wait on PostgreSQL and on the processes they start.
    maxWorkers: 4,
    env: mode === "fast" ? { BAD_INPUT_RUNS: process.env["BAD_INPUT_RUNS"] ?? "10" } : {},
    projects: [
      project("fast", {
        include: ["test/**/*.test.ts"],
        exclude: [...SLOW, ...ALONE],
        // The files share nothing but what they import; a worker imports the server once.
        isolate: false,
        sequence: { groupOrder: 0 },
      }),
      project("slow", { include: SLOW, isolate: false, sequence: { groupOrder: 0 } }),
      // Once the others are done: without a group order, projects run side by side.
      project("slow-alone", {
        include: ALONE,
        fileParallelism: false,
        sequence: { groupOrder: 1 },
      }),
    ],
  },
}));
