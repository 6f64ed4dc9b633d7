/**
 * `pnpm start` at the repository's root: the whole platform on one machine, as an operator
 * would run it, plus the demo store.
 *
 * 1. the API server (`WORKERS=off`), which starts the embedded PostgreSQL in `.data` when
 *    DATABASE_URL is unset;
 * 2. one `loyalty worker` process (orders, refunds, emails, webhooks);
 * 3. on first start, the demo store, loaded with `loyalty demo`; its reference and API key are
 *    kept in `.data/demo-store.json` for the next starts;
 * 4. the demo storefront (`src/main.ts`), configured with that store.
 *
 * Ctrl-C stops the storefront, the worker, then the API server (and with it the database), each
 * waited for. The data stays in `.data`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { LoyaltyAuthenticationError, LoyaltyClient } from "@loyalty/node-sdk";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SERVER_MAIN = "packages/server/src/main.ts";
const CLI = "packages/server/src/cli.ts";
const STOREFRONT_MAIN = "examples/express-storefront/src/main.ts";
const WIDGETS_DIR = path.join(ROOT, "packages/widgets");
const STOP_TIMEOUT_MS = 20_000;

const env = process.env;

function portOf(name: string, fallback: number): number {
  const port = Number(env[name] ?? fallback);
  if (Number.isInteger(port) && port > 0 && port < 65_536) return port;
  process.stderr.write(`${name} must be a port number (1 to 65535), not ${env[name]}\n`);
  process.exit(1);
}

const apiPort = portOf("PORT", 3000);
const storePort = portOf("STOREFRONT_PORT", 4000);
const dataDir = path.resolve(env["LOYALTY_DATA_DIR"] ?? ".data");
const apiUrl = `http://localhost:${apiPort}`;
const storeOrigin = `http://localhost:${storePort}`;
const demoFile = path.join(dataDir, "demo-store.json");

/** What every process of the platform shares: the same data directory and database. */
const platformEnv: NodeJS.ProcessEnv = {
  ...env,
  LOYALTY_DATA_DIR: dataDir,
  // JSON log lines are for log collectors; the demo shows warnings and errors, readably.
  LOG_LEVEL: env["LOG_LEVEL"] ?? "warn",
};

interface Service {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  stopping: boolean;
}

const services: Service[] = [];
/** CLI commands running (the demo store's loading): stopped first if Ctrl-C comes meanwhile. */
const commands = new Set<ChildProcess>();
let shuttingDown = false;

const say = (text: string) => process.stdout.write(`${text}\n`);

/** A child's log line, made readable: pino's JSON becomes `LEVEL message (error)`. */
function readable(line: string): string {
  try {
    const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } };
    if (typeof entry.msg !== "string") return line;
    const level = { 30: "info", 40: "warn", 50: "error", 60: "fatal" }[entry.level ?? 30] ?? "";
    return `${level} ${entry.msg}${entry.err?.message ? `: ${entry.err.message}` : ""}`;
  } catch {
    return line;
  }
}

/** Runs a TypeScript file of the repository on the workspace's sources (no build needed). */
function runSource(file: string, args: string[], childEnv: NodeJS.ProcessEnv): ChildProcess {
  return spawn(
    process.execPath,
    ["--conditions=@loyalty/source", "--import", "tsx", path.join(ROOT, file), ...args],
    // A process group of its own: Ctrl-C reaches this script alone, which stops the services
    // in order (the API last, as it owns the embedded database).
    { cwd: ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
}

/**
 * Starts a long-running service; resolves once it printed `ready`, fails with what it said if
 * it exits first.
 */
async function startService(
  name: string,
  file: string,
  args: string[],
  childEnv: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<Service> {
  // Ctrl-C came while an earlier step ran: start nothing that the shutdown would not stop.
  if (shuttingDown) throw new Error("stopped while starting");
  const child = runSource(file, args, childEnv);
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const service: Service = { name, child, exited, stopping: false };
  services.push(service);
  const label = `${name.padEnd(10)}│ `;
  let started = false;
  const said: string[] = [];
  await new Promise<void>((resolve, reject) => {
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream! }).on("line", (line) => {
        if (!started) said.push(readable(line));
        if (!started && ready.test(line)) {
          started = true;
          resolve();
        } else if (started) {
          say(`${label}${readable(line)}`);
        }
      });
    }
    void exited.then((code) => {
      if (!started) reject(new Error(`${name} exited (${code}):\n${said.join("\n")}`));
    });
  });
  void exited.then((code) => {
    if (!service.stopping && !shuttingDown) {
      say(`${label}stopped unexpectedly (exit code ${code}): stopping everything`);
      void shutdown(1);
    }
  });
  return service;
}

/** Runs a CLI command to its end; its standard output, or an error with what it said. */
async function runCli(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = runSource(CLI, args, platformEnv);
  commands.add(child);
  child.once("exit", () => commands.delete(child));
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, stdout, stderr };
}

async function cliJson<T>(args: string[]): Promise<T> {
  const result = await runCli([...args, "--json"]);
  if (result.code !== 0) {
    throw new Error(`loyalty ${args.join(" ")} failed (${result.code}): ${result.stderr}`);
  }
  return JSON.parse(result.stdout) as T;
}

/** The newest modification time under a directory (skipping dependencies and builds). */
function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist") continue;
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

/** The storefront serves the widgets' one script tag as merchants get it: the built file. */
async function buildWidgetsIfStale(): Promise<void> {
  const script = path.join(WIDGETS_DIR, "dist/loyalty-widgets.js");
  if (existsSync(script) && statSync(script).mtimeMs >= newest(path.join(WIDGETS_DIR, "src"))) {
    return;
  }
  say("Building the widgets' script (first start, or their sources changed)…");
  const child = spawn("pnpm", ["exec", "vite", "build", "--mode", "script", "--logLevel", "warn"], {
    cwd: WIDGETS_DIR,
    stdio: "inherit",
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`the widgets' build failed (${code})`);
}

interface DemoStore {
  domain: string;
  reference: string;
  apiKey: string;
}

/** Whether the API accepts this store's key (a customer-history read writes nothing). */
async function accepted(store: DemoStore): Promise<boolean> {
  const loyalty = new LoyaltyClient({
    apiKey: store.apiKey,
    storeReference: store.reference,
    domain: store.domain,
    baseUrl: apiUrl,
    maxRetries: 0,
  });
  try {
    await loyalty.customers.history(1);
    return true;
  } catch (error) {
    if (error instanceof LoyaltyAuthenticationError) return false;
    throw error;
  }
}

/**
 * The demo store of this storefront's origin: the one kept from an earlier start if the API
 * still accepts it, else loaded now. A database that has the store already (DATABASE_URL, the
 * file removed) gives it a new key.
 */
async function demoStore(): Promise<DemoStore> {
  const kept = await readFile(demoFile, "utf8")
    .then((text) => JSON.parse(text) as DemoStore)
    .catch(() => undefined);
  if (kept?.domain === storeOrigin && (await accepted(kept))) return kept;

  let store: DemoStore;
  const loaded = await runCli(["demo", "--domain", storeOrigin, "--json"]);
  if (loaded.code === 0) {
    const demo = JSON.parse(loaded.stdout) as {
      store: { reference: string; domain: string };
      key: { key: string };
    };
    say(`Loaded the demo store for ${storeOrigin}.`);
    store = { domain: demo.store.domain, reference: demo.store.reference, apiKey: demo.key.key };
  } else if (loaded.stderr.includes("already exists")) {
    const stores = await cliJson<{ reference: string; domain: string }[]>(["store", "list"]);
    const existing = stores.find((candidate) => candidate.domain === storeOrigin);
    if (!existing) throw new Error(`loyalty demo failed: ${loaded.stderr}`);
    const key = await cliJson<{ key: string }>([
      "key",
      "create",
      "--store",
      existing.reference,
      "--label",
      "demo storefront",
    ]);
    store = { domain: existing.domain, reference: existing.reference, apiKey: key.key };
  } else {
    throw new Error(`loyalty demo failed (${loaded.code}): ${loaded.stderr}`);
  }
  // With DATABASE_URL nothing else creates the data directory.
  await mkdir(dataDir, { recursive: true });
  await writeFile(demoFile, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
  return store;
}

async function stop(service: Service): Promise<void> {
  service.stopping = true;
  if (service.child.exitCode !== null || service.child.signalCode !== null) return;
  service.child.kill("SIGTERM");
  const timer = setTimeout(() => {
    say(`${service.name} did not stop within ${STOP_TIMEOUT_MS / 1000} s: killed`);
    // Its whole process group: a database it started goes with it. (Gone meanwhile: nothing to do.)
    try {
      process.kill(-(service.child.pid as number), "SIGKILL");
    } catch {
      // ESRCH: the group ended on its own.
    }
  }, STOP_TIMEOUT_MS);
  await service.exited;
  clearTimeout(timer);
}

async function shutdown(code: number): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  say("\nStopping: storefront, worker, then API server and database…");
  for (const command of commands) command.kill("SIGTERM");
  // The reverse of the start order: the API server, which owns the database, stops last.
  for (const service of [...services].reverse()) await stop(service);
  say("Stopped.");
  process.exit(code);
}

async function main(): Promise<void> {
  // Handled every time: a second Ctrl-C while stopping must not kill this script and leave
  // the services (and the database) running without it.
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));
  await buildWidgetsIfStale();
  say(
    env["DATABASE_URL"]
      ? "Starting on the PostgreSQL server of DATABASE_URL…"
      : `Starting on the embedded PostgreSQL (data in ${dataDir})…`,
  );
  await startService(
    "api",
    SERVER_MAIN,
    [],
    { ...platformEnv, PORT: String(apiPort), WORKERS: "off" },
    /listening on/,
  );
  const [store] = await Promise.all([
    demoStore(),
    startService("worker", CLI, ["worker"], platformEnv, /workers running/),
  ]);
  await startService(
    "storefront",
    STOREFRONT_MAIN,
    [],
    {
      ...env,
      PORT: String(storePort),
      STORE_ORIGIN: storeOrigin,
      LOYALTY_API_URL: apiUrl,
      LOYALTY_API_KEY: store.apiKey,
      LOYALTY_STORE_REFERENCE: store.reference,
      STORE_DATA_FILE: path.join(dataDir, "storefront.json"),
    },
    /listening on/,
  );
  say(`
The loyalty platform is running:

  Demo storefront   ${storeOrigin}
  Loyalty API       ${apiUrl}   (reference: ${apiUrl}/docs)
  Worker            1 process: orders, refunds, emails, webhooks
  Database          ${env["DATABASE_URL"] ? "DATABASE_URL" : `embedded PostgreSQL, data in ${dataDir}`}
  Demo store        reference ${store.reference}, API key in ${demoFile}

Sign in on the storefront's account page with any email, shop, check out, and watch the points.
Press Ctrl-C to stop everything; the data stays in ${dataDir} (delete it to start afresh).
`);
}

main().catch(async (error: unknown) => {
  // A service that fails because Ctrl-C stopped the start is no failure to report.
  if (shuttingDown) return;
  process.stderr.write(
    `The demo could not start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  await shutdown(1);
});
