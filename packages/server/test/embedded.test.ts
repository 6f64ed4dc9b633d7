import { randomBytes } from "node:crypto";
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import getPort from "get-port";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../src/config.js";
import { startEmbeddedPostgres, startThrowawayPostgres } from "../src/db/embedded.js";
import {
  canEnter,
  initialiseCluster,
  machineSettings,
  postgresUser,
  reachableBinaries,
  rootPostgresDir,
  startPostmaster,
} from "../src/db/postgres-launcher.js";
import { createLogger } from "../src/http/logger.js";

const silent = createLogger("silent");

describe("the embedded PostgreSQL", () => {
  it("leaves no hook that would exit the process on a signal, on beforeExit or on exit", async () => {
    const events = ["SIGINT", "SIGTERM", "SIGHUP", "beforeExit", "exit"] as const;
    const before = events.map((event) => process.listenerCount(event));
    const postgres = await startThrowawayPostgres("loyalty-hooks");
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    expect((await client.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await client.end();
    await postgres.stop();
    expect(events.map((event) => process.listenerCount(event))).toEqual(before);
  });

  it("sizes its memory and checkpoints for the machine, not initdb's 128 MB", async () => {
    const GiB = 1024 ** 3;
    const lax = { strictOvercommit: false };
    expect(machineSettings({ bytes: 24 * GiB, ...lax })).toEqual([
      "max_wal_size=4GB",
      "shared_buffers=6144MB",
      "effective_cache_size=12288MB",
    ]);
    // At most 8 GB of shared buffers however large the machine; never below initdb's 128 MB.
    expect(machineSettings({ bytes: 128 * GiB, ...lax })).toContain("shared_buffers=8192MB");
    expect(machineSettings({ bytes: GiB / 4, ...lax })).toEqual([
      "max_wal_size=4GB",
      "shared_buffers=128MB",
      "effective_cache_size=128MB",
    ]);
    // Strict overcommit charges the whole mapping at start: initdb's size, which starts anywhere.
    expect(machineSettings({ bytes: 24 * GiB, strictOvercommit: true })).toEqual([
      "max_wal_size=4GB",
      "effective_cache_size=12288MB",
    ]);

    const postgres = await startThrowawayPostgres("loyalty-sized");
    const client = new pg.Client({ connectionString: postgres.url });
    try {
      await client.connect();
      const expected = machineSettings();
      const { rows } = await client.query<{ name: string; setting: string; unit: string }>(
        `SELECT name, setting, unit FROM pg_settings WHERE name = ANY ($1::text[])`,
        [expected.map((setting) => setting.split("=")[0])],
      );
      const running = rows.map(({ name, setting, unit }) => {
        const mb = unit === "8kB" ? Number(setting) / 128 : Number(setting);
        return name === "max_wal_size" ? `${name}=${mb / 1024}GB` : `${name}=${mb}MB`;
      });
      expect(running.sort()).toEqual(expected.sort());
    } finally {
      await client.end();
      await postgres.stop();
    }
  });

  it("says in one sentence why it cannot start when its port is taken", async () => {
    // Made by startEmbeddedPostgres (755): as root, a 0700 mkdtemp directory would send its
    // cluster to /var/lib, out of this test's clean-up.
    const dataDir = path.join(os.tmpdir(), `loyalty-busy-${randomBytes(6).toString("hex")}`);
    const taken = createServer().listen(0, "127.0.0.1");
    await new Promise((resolve) => taken.once("listening", resolve));
    try {
      const { port } = taken.address() as AddressInfo;
      const failure = await startEmbeddedPostgres(dataDir, port, silent).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ConfigError);
      expect((failure as ConfigError).problems).toEqual([
        `DATABASE_URL: not set, and the embedded PostgreSQL cannot start here (postgres exited with code 1: could not create any TCP/IP sockets (could not bind IPv4 address "127.0.0.1": Address already in use)): set DATABASE_URL to a PostgreSQL server`,
      ]);
    } finally {
      taken.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("starts with initdb's memory when the machine refuses the sized shared buffers", async () => {
    const sharedBuffers = machineSettings()
      .find((setting) => setting.startsWith("shared_buffers="))
      ?.match(/=(\d+)MB/)?.[1];
    // Strict overcommit: nothing sized to refuse.
    if (!sharedBuffers) return;
    const user = await postgresUser();
    const binaries = await reachableBinaries(user);
    const temporary = os.tmpdir();
    const parent =
      !user || (await canEnter(user, temporary)) ? temporary : await rootPostgresDir("clusters");
    const dir = await mkdtemp(path.join(parent, "loyalty-refused-"));
    // As root, PostgreSQL's user must reach the cluster and the wrapper below.
    if (user) await chown(dir, user.uid, user.gid);
    const logs: string[] = [];
    const run = { binaries, user, onLog: (line: string) => logs.push(line) };
    try {
      await initialiseCluster(path.join(dir, "cluster"), "secret", run);
      // Less address space than the sized shared buffers need, as a ulimit or Windows's commit
      // charge would allow: the postmaster cannot map them.
      const limited = path.join(dir, "postgres");
      const limitKb = Math.max(Number(sharedBuffers) - 256, 768) * 1024;
      await writeFile(
        limited,
        `#!/bin/sh\nulimit -v ${limitKb}\nexec '${binaries.postgres}' "$@"\n`,
        { mode: 0o755 },
      );
      const port = await getPort();
      const postgres = await startPostmaster(path.join(dir, "cluster"), port, {
        ...run,
        binaries: { ...binaries, postgres: limited },
      });
      const client = new pg.Client({
        connectionString: `postgres://postgres:secret@127.0.0.1:${port}/postgres`,
      });
      try {
        await client.connect();
        const { rows } = await client.query<{ shared_buffers: string }>(
          "SELECT current_setting('shared_buffers') AS shared_buffers",
        );
        expect(rows).toEqual([{ shared_buffers: "128MB" }]);
        expect(logs.join("\n")).toMatch(/shared memory/i);
      } finally {
        await client.end();
        await postgres.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("rejects with that sentence when a binary cannot run, rather than ending the process", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "loyalty-no-binary-"));
    // A file that is not executable: spawn fails with EACCES, as it did under root's home.
    const binaries = { initdb: path.join(dir, "initdb"), postgres: path.join(dir, "postgres") };
    const run = { binaries, user: undefined, onLog: () => {} };
    try {
      await writeFile(binaries.initdb, "");
      await writeFile(binaries.postgres, "");
      await expect(initialiseCluster(path.join(dir, "cluster"), "secret", run)).rejects.toThrow(
        `DATABASE_URL: not set, and the embedded PostgreSQL cannot start here (${binaries.initdb} cannot run: EACCES): set DATABASE_URL to a PostgreSQL server`,
      );
      await expect(startPostmaster(path.join(dir, "cluster"), 1, run)).rejects.toThrow(
        `(${binaries.postgres} cannot run: EACCES)`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
