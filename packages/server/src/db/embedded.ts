import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import getPort from "get-port";
import pg from "pg";
import type { Logger } from "pino";
import {
  canEnter,
  initialiseCluster,
  postgresUser,
  reachableBinaries,
  rootPostgresDir,
  startPostmaster,
  type PostgresProcess,
  type PostgresUser,
} from "./postgres-launcher.js";

export interface EmbeddedDatabase {
  url: string;
  /** Stops the cluster when this process owns it; one another live process runs is left alone. */
  stop(): Promise<void>;
}

interface ClusterSettings {
  password: string;
  /** Written once initdb has finished: a cluster directory without it is a broken first start. */
  initialised: boolean;
  /** Where the cluster is when not in `<dataDir>/postgres` (out of the user postgres's reach). */
  clusterDir?: string;
}

async function readSettings(file: string): Promise<ClusterSettings | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as ClusterSettings;
  } catch {
    return undefined;
  }
}

interface Postmaster {
  pid: number;
  port: number;
}

/** The pid and port PostgreSQL writes in postmaster.pid while it runs. */
async function readPostmaster(clusterDir: string): Promise<Postmaster | undefined> {
  try {
    const lines = (await readFile(path.join(clusterDir, "postmaster.pid"), "utf8")).split("\n");
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    return Number.isInteger(pid) && Number.isInteger(port) ? { pid, port } : undefined;
  } catch {
    return undefined;
  }
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  // A server that shuts down as it answers must be an answer of "no", not an uncaught error.
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

interface ProcessState {
  alive: boolean;
  /** Its parent died: nobody will stop it. */
  orphaned: boolean;
  /** A PostgreSQL process (unknown outside Linux: assumed). */
  postgres: boolean;
}

async function processState(pid: number): Promise<ProcessState> {
  try {
    process.kill(pid, 0);
  } catch {
    return { alive: false, orphaned: false, postgres: false };
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid ...".
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return { alive: true, orphaned: ppid === 1, postgres: name.startsWith("postgres") };
  } catch {
    return { alive: true, orphaned: false, postgres: true };
  }
}

async function stopPostmaster(pid: number): Promise<void> {
  process.kill(pid, "SIGINT"); // PostgreSQL's fast shutdown.
  for (let waited = 0; waited < 15_000; waited += 100) {
    if (!(await processState(pid)).alive) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const urlFor = (password: string, port: number) =>
  `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;

/**
 * The cluster directory for `dataDir`: `<dataDir>/postgres`, unless PostgreSQL runs as the user
 * postgres (this process is root) and that user cannot enter `dataDir` (a checkout in root's
 * home directory): then a directory of root's for this data directory, named after its path
 * so that starting afresh there replaces the old cluster.
 */
async function clusterDirFor(
  dataDir: string,
  user: PostgresUser | undefined,
  logger: Logger,
): Promise<string | undefined> {
  if (!user || (await canEnter(user, dataDir))) return undefined;
  const key = createHash("sha256")
    .update(await realpath(dataDir))
    .digest("hex")
    .slice(0, 16);
  const clusterDir = path.join(await rootPostgresDir("clusters"), key);
  logger.warn(
    { dataDir, clusterDir },
    "the embedded PostgreSQL runs as the user postgres, who cannot enter the data directory: its cluster is kept elsewhere",
  );
  return clusterDir;
}

/**
 * Runs the embedded PostgreSQL (a real server from the npm registry) with its data in
 * `<dataDir>/postgres`, initialising it on first use.
 *
 * - When a live cluster already serves that directory (the server runs while an operator uses
 *   the CLI), connects to it. A cluster left running by a killed process (orphaned) is adopted:
 *   this process stops it when it stops. With `adopt: false` (the CLI) it is left running.
 * - A first start interrupted before initdb finished is started again from scratch.
 * - A stale postmaster.pid (a crash, or a pid reused after a container restart) is removed.
 * - As root, PostgreSQL runs as the user postgres; when that user cannot enter `dataDir`, the
 *   cluster lives under /var/lib (postgres.json in `dataDir` says where).
 * - Where PostgreSQL cannot run, the error (a ConfigError) says so in one sentence.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  logger: Logger,
  options: { adopt?: boolean } = {},
): Promise<EmbeddedDatabase> {
  const settingsFile = path.join(dataDir, "postgres.json");
  await mkdir(dataDir, { recursive: true });

  let settings = await readSettings(settingsFile);
  let clusterDir = settings?.clusterDir ?? path.join(dataDir, "postgres");
  const initialised =
    settings?.initialised === true && existsSync(path.join(clusterDir, "PG_VERSION"));

  if (initialised && settings) {
    const running = await readPostmaster(clusterDir);
    if (running && (await answers(urlFor(settings.password, running.port)))) {
      const { orphaned } = await processState(running.pid);
      const adopt = orphaned && options.adopt !== false;
      logger.info(
        { port: running.port, adopted: adopt },
        adopt
          ? "adopting the embedded PostgreSQL a stopped process left running"
          : "using the embedded PostgreSQL another process runs",
      );
      return {
        url: urlFor(settings.password, running.port),
        stop: async () => {
          if (!adopt) return;
          await stopPostmaster(running.pid);
          logger.info("embedded PostgreSQL stopped");
        },
      };
    }
    if (running) {
      const state = await processState(running.pid);
      if (state.alive && state.postgres) {
        throw new Error(
          `The embedded PostgreSQL in ${clusterDir} (pid ${running.pid}) does not answer on port ${running.port}: stop it, then start again.`,
        );
      }
      // A stale lock file: a crash, or a pid reused by another process after a restart, which
      // PostgreSQL would take for a live server and refuse to start.
      await rm(path.join(clusterDir, "postmaster.pid"), { force: true });
    }
  }

  const user = await postgresUser();
  const run = {
    binaries: await reachableBinaries(user),
    user,
    onLog: (line: string) => logger.debug({ postgres: line }, "embedded postgres"),
  };
  if (!initialised || !settings) {
    const elsewhere = await clusterDirFor(dataDir, user, logger);
    clusterDir = elsewhere ?? path.join(dataDir, "postgres");
    settings = {
      password: randomBytes(18).toString("base64url"),
      initialised: false,
      ...(elsewhere ? { clusterDir: elsewhere } : {}),
    };
    await rm(clusterDir, { recursive: true, force: true });
    await writeFile(settingsFile, JSON.stringify(settings), { mode: 0o600 });
    logger.info({ dir: clusterDir }, "initialising the embedded PostgreSQL cluster");
    await initialiseCluster(clusterDir, settings.password, run);
    settings.initialised = true;
    await writeFile(settingsFile, JSON.stringify(settings), { mode: 0o600 });
  }
  const postmaster = await startPostmaster(clusterDir, port, run);
  logger.info({ port, dir: clusterDir }, "embedded PostgreSQL started");
  return {
    url: urlFor(settings.password, port),
    stop: async () => {
      await postmaster.stop();
      logger.info("embedded PostgreSQL stopped");
    },
  };
}

/** A PostgreSQL started by startThrowawayPostgres. */
export interface ThrowawayPostgres {
  url: string;
  /** Stops it and deletes its files. */
  stop(): Promise<void>;
  /** Fast shutdown that keeps its files: the database going away under a running app. */
  halt(): Promise<void>;
  /** Starts it again after halt(), on the same port and data. */
  resume(): Promise<void>;
}

/**
 * A PostgreSQL of its own in a temporary directory, for a test run or a benchmark on a machine
 * without DATABASE_URL: started on a free port, deleted with its files when stopped. The fault
 * tests halt and resume it.
 */
export async function startThrowawayPostgres(name: string): Promise<ThrowawayPostgres> {
  const user = await postgresUser();
  const run = { binaries: await reachableBinaries(user), user, onLog: () => {} };
  const temporary = os.tmpdir();
  const parent =
    !user || (await canEnter(user, temporary)) ? temporary : await rootPostgresDir("clusters");
  // The directory itself is the cluster's: it is handed to the postgres user when this runs as root.
  const directory = await mkdtemp(path.join(parent, `${name}-`));
  const port = await getPort();
  let postmaster: PostgresProcess | undefined;
  try {
    await initialiseCluster(directory, "postgres", run);
    postmaster = await startPostmaster(directory, port, run);
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await postmaster?.stop();
      postmaster = undefined;
      await rm(directory, { recursive: true, force: true });
    },
    halt: async () => {
      await postmaster?.stop();
      postmaster = undefined;
    },
    resume: async () => {
      postmaster ??= await startPostmaster(directory, port, run);
    },
  };
}
