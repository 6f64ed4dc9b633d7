import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { connect, createServer, type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import getPort from "get-port";
import { afterAll, describe, expect, it } from "vitest";
import { TEST_MASTER_KEY } from "./support/app.js";
import { createTestDatabase } from "./support/database.js";
import { environment, exitOf, runCli, spawnServer, startServer } from "./support/processes.js";

const dataDir = path.join(os.tmpdir(), `loyalty-start-${randomBytes(6).toString("hex")}`);
afterAll(() => rm(dataDir, { recursive: true, force: true }));

async function postmasterPid(
  clusterDir = path.join(dataDir, "postgres"),
): Promise<number | undefined> {
  try {
    const text = await readFile(path.join(clusterDir, "postmaster.pid"), "utf8");
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
      // PostgreSQL runs; the server is still migrating, not yet listening. Before that, initdb's
      // single-user runs write postmaster.pid too (their pid negated) and remove it: the file
      // comes and goes, and may name a process already gone.
      let postgres = await postmasterPid(path.join(ownDir, "postgres"));
      while (postgres === undefined || postgres <= 0 || !alive(postgres)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        postgres = await postmasterPid(path.join(ownDir, "postgres"));
      }
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

  it.skipIf(process.getuid?.() !== 0)(
    "starts as root from a data directory the user postgres cannot enter (a checkout in root's home)",
    async () => {
      // mkdtemp's directory is root's alone (0700), like /root.
      const privateDir = await mkdtemp(path.join(os.tmpdir(), "loyalty-private-"));
      const ownDir = path.join(privateDir, ".data");
      const env = await machineWithoutDatabase(ownDir);
      const clusterDir = async () =>
        readFile(path.join(ownDir, "postgres.json"), "utf8")
          .then((text) => (JSON.parse(text) as { clusterDir?: string }).clusterDir)
          .catch(() => undefined);
      const servers: ChildProcess[] = [];
      try {
        const first = await startServer(env);
        servers.push(first.child);
        const store = await runCli(
          ["store", "create", "--domain", "https://private.example", "--json"],
          env,
        );
        expect(store.code, store.stderr).toBe(0);
        const cluster = await clusterDir();
        expect(cluster).toMatch(/^\/var\/lib\/loyalty-embedded-postgres\/clusters\/[0-9a-f]{16}$/);
        first.child.kill("SIGTERM");
        expect(await exitOf(first.child), first.output()).toBe(0);
        expect(await postmasterPid(cluster)).toBeUndefined();

        const again = await startServer(env);
        servers.push(again.child);
        const stores = await runCli(["store", "list", "--json"], env);
        expect(JSON.parse(stores.stdout)).toEqual([
          expect.objectContaining({ domain: "https://private.example" }),
        ]);
        again.child.kill("SIGTERM");
        expect(await exitOf(again.child), again.output()).toBe(0);
      } finally {
        for (const child of servers) {
          child.kill("SIGTERM");
          await exitOf(child);
        }
        const cluster = await clusterDir();
        if (cluster) await rm(cluster, { recursive: true, force: true });
        await rm(privateDir, { recursive: true, force: true });
      }
    },
    60_000,
  );

  it("says in one sentence, without a stack trace, why its embedded PostgreSQL cannot start", async () => {
    const ownDir = path.join(os.tmpdir(), `loyalty-taken-${randomBytes(6).toString("hex")}`);
    const taken = createServer().listen(0, "127.0.0.1");
    await new Promise((resolve) => taken.once("listening", resolve));
    try {
      const env = await machineWithoutDatabase(ownDir);
      env["EMBEDDED_POSTGRES_PORT"] = String((taken.address() as AddressInfo).port);
      const child = spawnServer(env);
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      expect(await exitOf(child)).toBe(1);
      expect(stderr).toMatch(
        /^The server could not start: Invalid configuration:\n {2}- DATABASE_URL: not set, and the embedded PostgreSQL cannot start here \(postgres exited with code 1: .*Address already in use\)\): set DATABASE_URL to a PostgreSQL server\n$/,
      );
    } finally {
      taken.close();
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
      // A request whose body is still arriving when the signal comes: the sign-in, which reads
      // its body before anything else (other operations check credentials first).
      const socket = connect(port, "127.0.0.1");
      let response = "";
      socket.on("data", (chunk: Buffer) => (response += chunk.toString()));
      await new Promise((resolve) => socket.once("connect", resolve));
      const body = JSON.stringify({ email: "nobody@example.com", password: "not the password" });
      socket.write(
        `POST /admin/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      server.child.kill("SIGTERM");
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(server.child.exitCode).toBeNull();
      // The rest of the body, the client's side kept open as HTTP clients do until they have
      // the answer (the server closes: Connection: close).
      socket.write(body.slice(5));
      await new Promise((resolve) => socket.once("close", resolve));
      expect(response).toMatch(/^HTTP\/1\.1 401 /);
      expect(response).toContain('"statusCode":401');
      expect(await exitOf(server.child)).toBe(0);
      expect(server.output()).toContain('"msg":"stopped"');
    } finally {
      server.child.kill("SIGKILL");
      await database.drop();
    }
  }, 60_000);
});
