import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import getPort from "get-port";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_MASTER_KEY } from "./support/app.js";
import { createTestDatabase } from "./support/database.js";
import { environment, exitOf, runCli, spawnServer, startServer } from "./support/processes.js";

const dataDir = path.join(os.tmpdir(), `loyalty-start-${randomBytes(6).toString("hex")}`);
afterAll(() => rm(dataDir, { recursive: true, force: true }));

async function postmasterPid(): Promise<number | undefined> {
  try {
    const text = await readFile(path.join(dataDir, "postgres", "postmaster.pid"), "utf8");
    return Number(text.split("\n")[0]);
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A fresh machine's environment: no DATABASE_URL, no master key, this data directory. */
async function machineWithoutDatabase(dir: string): Promise<NodeJS.ProcessEnv> {
  return environment({
    DATABASE_URL: undefined,
    LOYALTY_MASTER_KEY: undefined,
    LOYALTY_DATA_DIR: dir,
    EMBEDDED_POSTGRES_PORT: String(await getPort()),
    PORT: String(await getPort()),
  });
}

describe("the server process on a machine with no database", () => {
  it("starts on an embedded PostgreSQL, shares it with the CLI, stops it on SIGTERM, keeps the data", async () => {
    const env = await machineWithoutDatabase(dataDir);
    const port = Number(env["PORT"]);
    const server = await startServer(env);
    try {
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      const store = await runCli(
        ["store", "create", "--domain", "https://embedded.example", "--json"],
        env,
      );
      expect(store.code).toBe(0);
      const reference = (JSON.parse(store.stdout) as { reference: string }).reference;
      expect((await runCli(["key", "create", "--store", reference, "--json"], env)).code).toBe(0);
      expect(existsSync(path.join(dataDir, "master.key"))).toBe(true);

      server.child.kill("SIGTERM");
      expect(await exitOf(server.child)).toBe(0);
      expect(await postmasterPid()).toBeUndefined();
    } finally {
      server.child.kill("SIGKILL");
    }

    // Data survives a restart, on another port if the operator changes it.
    const restarted = { ...env, EMBEDDED_POSTGRES_PORT: String(await getPort()) };
    const again = await startServer(restarted);
    try {
      const keys = await runCli(["key", "list", "--json"], restarted);
      expect(JSON.parse(keys.stdout)).toHaveLength(1);
      const pidFile = await readFile(path.join(dataDir, "postgres", "postmaster.pid"), "utf8");
      expect(pidFile.split("\n")[3]).toBe(restarted.EMBEDDED_POSTGRES_PORT);

      // Killed outright, the server leaves its PostgreSQL running: the next server adopts it.
      again.child.kill("SIGKILL");
      await exitOf(again.child);
      const orphan = await postmasterPid();
      expect(orphan !== undefined && alive(orphan)).toBe(true);
    } finally {
      again.child.kill("SIGKILL");
    }

    const adopting = await startServer(restarted);
    try {
      const keys = await runCli(["key", "list", "--json"], restarted);
      expect(JSON.parse(keys.stdout)).toHaveLength(1);
      const orphan = (await postmasterPid()) as number;
      adopting.child.kill("SIGINT");
      expect(await exitOf(adopting.child)).toBe(0);
      expect(alive(orphan)).toBe(false);
    } finally {
      adopting.child.kill("SIGKILL");
    }
  }, 120_000);

  it("stops its embedded PostgreSQL when stopped while it starts", async () => {
    const ownDir = path.join(os.tmpdir(), `loyalty-early-${randomBytes(6).toString("hex")}`);
    const env = await machineWithoutDatabase(ownDir);
    const child = spawnServer(env);
    try {
      // PostgreSQL runs; the server is still migrating, not yet listening.
      const pidFile = path.join(ownDir, "postgres", "postmaster.pid");
      while (!existsSync(pidFile)) await new Promise((resolve) => setTimeout(resolve, 20));
      const postgres = Number((await readFile(pidFile, "utf8")).split("\n")[0]);
      child.kill("SIGTERM");
      expect(await exitOf(child)).toBe(0);
      expect(alive(postgres)).toBe(false);
    } finally {
      child.kill("SIGKILL");
      await rm(ownDir, { recursive: true, force: true });
    }
  }, 60_000);

  it("starts after a crash left a postmaster.pid naming another live process", async () => {
    const ownDir = path.join(os.tmpdir(), `loyalty-stale-${randomBytes(6).toString("hex")}`);
    const env = await machineWithoutDatabase(ownDir);
    try {
      const first = await startServer(env);
      first.child.kill("SIGTERM");
      expect(await exitOf(first.child), first.output()).toBe(0);

      // This test's own pid: alive, and not a PostgreSQL.
      await writeFile(
        path.join(ownDir, "postgres", "postmaster.pid"),
        `${process.pid}\n${ownDir}\n0\n1\n`,
      );
      const server = await startServer(env);
      expect((await runCli(["key", "list", "--json"], env)).stdout.trim()).toBe("[]");
      server.child.kill("SIGTERM");
      expect(await exitOf(server.child), server.output()).toBe(0);
    } finally {
      await rm(ownDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("graceful shutdown", () => {
  it("answers a request in flight before it exits on SIGTERM", async () => {
    const database = await createTestDatabase();
    const port = await getPort();
    const server = await startServer(
      environment({
        DATABASE_URL: database.url,
        LOYALTY_MASTER_KEY: TEST_MASTER_KEY,
        PORT: String(port),
        LOG_LEVEL: "info",
      }),
    );
    try {
      // A request whose body is still arriving when the signal comes.
      const socket = connect(port, "127.0.0.1");
      let response = "";
      socket.on("data", (chunk: Buffer) => (response += chunk.toString()));
      await new Promise((resolve) => socket.once("connect", resolve));
      const body = JSON.stringify({ rewardId: 1 });
      socket.write(
        `POST /in-flight HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      server.child.kill("SIGTERM");
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(server.child.exitCode).toBeNull();
      socket.end(body.slice(5));
      await new Promise((resolve) => socket.once("close", resolve));
      expect(response).toMatch(/^HTTP\/1\.1 404 /);
      expect(response).toContain('"statusCode":404');
      expect(await exitOf(server.child)).toBe(0);
      expect(server.output()).toContain('"msg":"stopped"');
    } finally {
      server.child.kill("SIGKILL");
      await database.drop();
    }
  }, 60_000);
});
