import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { pino } from "pino";
import { startThrowawayPostgres } from "../src/db/embedded.js";
import { migrate } from "../src/db/migrate.js";

/** What the benchmarks share: the server's processes and a database of their own. */

export const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
export const ROOT = path.resolve(PACKAGE_DIR, "../..");
const NODE_ARGS = ["--conditions=@loyalty/source", "--import", "tsx"];

/**
 * Whether the server's processes run from their sources through tsx (`BENCH_SOURCE=1`), or, by
 * default, from the build, as operators run them: tsx's loader thread and its source maps cost
 * a server about 90 MiB of memory (243 MiB against 151 MiB after warm-up, 2026-11-27).
 */
const FROM_SOURCE = process.env["BENCH_SOURCE"] === "1";

/** The newest modification time of the files under a directory, in milliseconds. */
function newest(directory: string): number {
  let latest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const file = path.join(directory, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(file) : statSync(file).mtimeMs);
  }
  return latest;
}

let checkedBuild = false;

/**
 * A process's command line: `src/<name>.ts` is the build's `dist/<name>.js`, unless the run is
 * from the sources; a `.js` file runs as it is. A build older than the sources would measure other code: refused.
 */
function entryArguments(args: string[]): string[] {
  const [entry, ...rest] = args;
  // A build given by its file (another build than dist/, bench/worker-variants.ts) runs as
  // operators run it: without tsx's loader, its packages as built.
  if (entry?.endsWith(".js")) return args;
  const match = entry === undefined ? null : /^src\/(.+)\.ts$/.exec(entry);
  if (FROM_SOURCE || !match) return [...NODE_ARGS, ...args];
  const built = path.join(PACKAGE_DIR, "dist", `${match[1]}.js`);
  if (!checkedBuild) {
    const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
    if (builtAt < newest(path.join(PACKAGE_DIR, "src"))) {
      throw new Error(
        `${path.relative(ROOT, built)} is missing or older than the sources: run \`pnpm build\` (or \`pnpm --filter @loyalty/server... build\`) first, or BENCH_SOURCE=1 to run the sources through tsx`,
      );
    }
    checkedBuild = true;
  }
  return [built, ...rest];
}

/**
 * The processes started and not yet exited: stopped when this process exits, however it does
 * (an uncaught error, a closed output pipe), so that no server or hello-world left behind takes
 * the CPUs of the next run.
 */
const children = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of children) child.kill("SIGTERM");
});

/** Starts a process and resolves with it and the first match of `ready` in its output. */
export function start(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  options: { niceness?: number; cpus?: string } = {},
): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    // Node takes --cpu-prof on its command line only (NODE_OPTIONS refuses it).
    const profile = env["CPU_PROFILE_DIR"]
      ? ["--cpu-prof", `--cpu-prof-dir=${env["CPU_PROFILE_DIR"]}`]
      : [];
    const command = [process.execPath, ...profile, ...entryArguments(args)];
    // On the given CPUs from its first instruction (`taskset` executes node in its place), so
    // that every thread it starts is there too.
    if (options.cpus !== undefined) command.unshift("taskset", "-c", options.cpus);
    const child = spawn(command[0] as string, command.slice(1), {
      cwd: PACKAGE_DIR,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.add(child);
    child.once("exit", () => children.delete(child));
    // Its main thread, before the process has had time to connect anywhere.
    if (options.niceness !== undefined && child.pid) os.setPriority(child.pid, options.niceness);
    let output = "";
    let started = false;
    // Output is read to the end, not only up to the banner: a full pipe would block the server.
    const onData = (chunk: Buffer) => {
      if (started) return;
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) {
        started = true;
        resolve({ child, port: Number(match[1] ?? 0) });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited ${code}:\n${output}`)));
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  children.delete(child);
  if (child.exitCode !== null) return;
  child.removeAllListeners("exit");
  await new Promise((resolve) => {
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });
}

export async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** The server (src/main.ts) as an operator runs it, on the benchmark's database. */
export function serverEnv(
  databaseUrl: string,
  masterKey: string,
  workers: "in-process" | "off",
): NodeJS.ProcessEnv {
  return {
    NODE_ENV: "production",
    PORT: "0",
    HOST: "127.0.0.1",
    DATABASE_URL: databaseUrl,
    LOYALTY_MASTER_KEY: masterKey,
    MIGRATE_ON_START: "false",
    WORKERS: workers,
    LOG_LEVEL: "info",
    // One load generator is one client: the limits stay on (their cost is measured) but high.
    RATE_LIMIT_STOREFRONT: "1000000000",
    RATE_LIMIT_CUSTOMER: "1000000000",
    RATE_LIMIT_API_KEY: "1000000000",
    RATE_LIMIT_ADMIN: "1000000000",
    // `BENCH_PROFILE=<directory>`: the server writes a V8 CPU profile there when it stops
    // (open it in Chrome's DevTools or speedscope), to find where a scenario's time goes.
    ...(process.env["BENCH_PROFILE"] && {
      CPU_PROFILE_DIR: path.resolve(process.env["BENCH_PROFILE"]),
    }),
  };
}

export const SERVER_READY = /listening on http:\/\/[^\s]*:(\d+)/;

export interface BenchDatabase {
  url: string;
  serverVersion: string;
  /** Whether it runs on a throwaway embedded PostgreSQL rather than DATABASE_URL's server. */
  embedded: boolean;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database for one run: on DATABASE_URL's server when set, else on an
 * embedded PostgreSQL in a temporary directory. `drop` removes it (and stops that server).
 */
export async function benchDatabase(): Promise<BenchDatabase> {
  const embedded = process.env["DATABASE_URL"]
    ? undefined
    : await startThrowawayPostgres("loyalty-bench-pg");
  const adminUrl = embedded?.url ?? process.env["DATABASE_URL"];
  if (!adminUrl) throw new Error("no database for the benchmark");
  const database = `loyalty_bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  await migrate(url.toString(), pino({ level: "error" }));
  const { rows } = await admin.query<{ server_version: string }>("SHOW server_version");
  return {
    url: url.toString(),
    serverVersion: rows[0]?.server_version ?? "?",
    embedded: Boolean(embedded),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
      await admin.end();
      await embedded?.stop();
    },
  };
}

/**
 * A section of BENCHMARKS.md (from its `## ` heading to the next) as the file has it now, ""
 * when it has none: the commands that take long write their own section, and `pnpm bench`
 * keeps it when it writes the file anew.
 */
export async function keptSection(heading: string): Promise<string> {
  const text = await readFile(path.join(ROOT, "BENCHMARKS.md"), "utf8").catch(() => "");
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) return "";
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start + 1, end < 0 ? undefined : end + 1);
}

/** Puts a section in BENCHMARKS.md in place of its last version (else at the end). */
export async function writeSection(heading: string, section: string): Promise<void> {
  const file = path.join(ROOT, "BENCHMARKS.md");
  const text = await readFile(file, "utf8");
  const kept = await keptSection(heading);
  const updated = kept
    ? text.replace(kept, () => `${section}${kept.endsWith("\n\n") ? "\n" : ""}`)
    : `${text}${text.endsWith("\n") ? "" : "\n"}\n${section}`;
  await writeFile(file, updated);
}

/**
 * Writes out what is dirty in shared buffers, so that no checkpoint runs under what is measured
 * next. Not a superuser (nor pg_checkpoint) on DATABASE_URL's server: its own checkpoints will
 * do, and `say` tells so.
 */
export async function checkpoint(
  db: { query(sql: string): Promise<unknown> },
  say: (message: string) => void,
): Promise<void> {
  await db.query("CHECKPOINT").catch((error: unknown) => {
    if ((error as { code?: string }).code !== "42501") throw error;
    say("CHECKPOINT not permitted: one may run under what is measured next");
  });
}
