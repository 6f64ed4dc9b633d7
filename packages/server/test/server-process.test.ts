import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "./support/global-setup.js";
import { environment, exitOf, runCli, startServer } from "./support/processes.js";

const dataDir = path.join(os.tmpdir(), `loyalty-start-${randomBytes(6).toString("hex")}`);
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe("the server process on a machine with no database", () => {
  it("starts on an embedded PostgreSQL, shares it with the CLI, and stops cleanly on SIGTERM", async () => {
    const port = await freePort();
    const env = environment({
      DATABASE_URL: undefined,
      LOYALTY_MASTER_KEY: undefined,
      LOYALTY_DATA_DIR: dataDir,
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
      PORT: String(port),
    });
    const server = await startServer(env);
    try {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);

      const store = await runCli(
        ["store", "create", "--domain", "https://embedded.example", "--json"],
        env,
      );
      expect(store.code).toBe(0);
      const key = await runCli(
        ["key", "create", "--store", JSON.parse(store.stdout).reference, "--json"],
        env,
      );
      expect(key.code).toBe(0);
      expect(existsSync(path.join(dataDir, "master.key"))).toBe(true);

      server.child.kill("SIGTERM");
      expect(await exitOf(server.child)).toBe(0);
      // The embedded cluster stopped with the server: its pid file is gone.
      expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
    } finally {
      server.child.kill("SIGKILL");
    }

    // Data survives a restart.
    const again = await startServer(env);
    try {
      const keys = await runCli(["key", "list", "--json"], env);
      expect(JSON.parse(keys.stdout)).toHaveLength(1);
      again.child.kill("SIGINT");
      expect(await exitOf(again.child)).toBe(0);
    } finally {
      again.child.kill("SIGKILL");
    }
    expect((await readFile(path.join(dataDir, "postgres", "PG_VERSION"), "utf8")).trim()).toMatch(
      /^\d+$/,
    );
  }, 120_000);
});
