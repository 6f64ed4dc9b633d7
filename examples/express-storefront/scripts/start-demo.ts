/**
 * `pnpm start` at the repository's root: the whole platform on one machine, as an operator
 * would run it, plus the demo store.
 *
 * 1. the API server (`WORKERS=off`), which starts the embedded PostgreSQL in `.data` when
 *    DATABASE_URL is unset;
 * 2. one `loyalty worker` process (orders, refunds, emails, webhooks);
 * 3. on first start, the demo store, loaded with `loyalty demo`, and an admin of that store for
 *    the back-office, created with `loyalty admin create`; the store's reference and API key and
 *    the admin's email and password are kept in `.data/demo-store.json` for the next starts;
 * 4. the demo storefront (`src/main.ts`), configured with that store.
 *
 * The widgets' script and the back-office are built first when their build is missing or older
 * than their sources.
 *
 * Ctrl-C stops the storefront, the worker, then the API server (and with it the database), each
 * waited for. The data stays in `.data`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { LoyaltyAuthenticationError, LoyaltyClient } from "@loyalty/node-sdk";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SERVER_MAIN = "packages/server/src/main.ts";
const CLI = "packages/server/src/cli.ts";
const STOREFRONT_MAIN = "examples/express-storefront/src/main.ts";
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
const backOfficeUrl = `${apiUrl}/back-office/`;
/** The demo admin's login; `.test` is a domain reserved for tests, which never receives mail. */
const DEMO_ADMIN_EMAIL = "admin@demo.loyalty.test";

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

/** The newest modification time of these files and directories (dependencies and builds aside). */
function newest(paths: string[]): number {
  let latest = 0;
  for (const file of paths) {
    if (!existsSync(file)) continue;
    if (!statSync(file).isDirectory()) {
      latest = Math.max(latest, statSync(file).mtimeMs);
      continue;
    }
    const entries = readdirSync(file, { withFileTypes: true }).filter(
      (entry) => entry.name !== "node_modules" && entry.name !== "dist",
    );
    latest = Math.max(latest, newest(entries.map((entry) => path.join(file, entry.name))));
  }
  return latest;
}

interface Build {
  /** What the build makes, as the message says it. */
  name: string;
  /** The package's directory, under the repository's root. */
  dir: string;
  /** The built file whose age is compared, in the package. */
  output: string;
  /** What the build reads, in the repository. */
  sources: string[];
  /** `pnpm` arguments, run in the package. */
  command: string[];
}

/** The storefront serves the widgets' one script tag as merchants get it: the built file. */
const WIDGETS_SCRIPT: Build = {
  name: "the widgets' script",
  dir: "packages/widgets",
  output: "dist/loyalty-widgets.js",
  sources: ["packages/widgets/src"],
  command: ["exec", "vite", "build", "--mode", "script", "--logLevel", "warn"],
};

/** The API server serves the back-office's build at /back-office/. */
const BACK_OFFICE: Build = {
  name: "the back-office",
  dir: "packages/back-office",
  output: "dist/index.html",
  // Its own files, and the contracts and widgets it bundles from their sources.
  sources: [
    "packages/back-office/src",
    "packages/back-office/index.html",
    "packages/back-office/vite.config.ts",
    "packages/back-office/package.json",
    "packages/shared-types/src",
    "packages/widgets/src",
  ],
  command: ["exec", "vite", "build", "--logLevel", "warn"],
};

async function buildIfStale(build: Build): Promise<void> {
  const dir = path.join(ROOT, build.dir);
  const output = path.join(dir, build.output);
  const sources = build.sources.map((source) => path.join(ROOT, source));
  if (existsSync(output) && statSync(output).mtimeMs >= newest(sources)) return;
  say(`Building ${build.name} (first start, or its sources changed)…`);
  const child = spawn("pnpm", build.command, { cwd: dir, stdio: "inherit" });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`the build of ${build.name} failed (${code})`);
}

interface DemoStore {
  domain: string;
  reference: string;
  apiKey: string;
}

/** An admin of the demo store alone (not of the whole service): all the demo needs. */
interface DemoAdmin {
  email: string;
  password: string;
  /** The reference of the store they administer. */
  store: string;
}

/** `.data/demo-store.json`. */
interface Kept extends DemoStore {
  admin?: DemoAdmin;
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
async function demoStore(kept: Kept | undefined): Promise<DemoStore> {
  if (kept?.domain === storeOrigin && (await accepted(kept))) {
    return { domain: kept.domain, reference: kept.reference, apiKey: kept.apiKey };
  }
  const loaded = await runCli(["demo", "--domain", storeOrigin, "--json"]);
  if (loaded.code === 0) {
    const demo = JSON.parse(loaded.stdout) as {
      store: { reference: string; domain: string };
      key: { key: string };
    };
    say(`Loaded the demo store for ${storeOrigin}.`);
    return { domain: demo.store.domain, reference: demo.store.reference, apiKey: demo.key.key };
  }
  if (!loaded.stderr.includes("already exists")) {
    throw new Error(`loyalty demo failed (${loaded.code}): ${loaded.stderr}`);
  }
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
  return { domain: existing.domain, reference: existing.reference, apiKey: key.key };
}

/** Whether the API signs this admin in (a disabled admin, a wrong password: no). */
async function signsIn(admin: DemoAdmin): Promise<boolean> {
  const response = await fetch(`${apiUrl}/admin/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: admin.email, password: admin.password }),
  });
  if (response.status === 401) return false;
  if (!response.ok) {
    throw new Error(`POST /admin/token answered ${response.status}: ${await response.text()}`);
  }
  return true;
}

/**
 * The back-office admin of the demo store: the one kept from an earlier start if they still
 * sign in, else a new one, whose password the CLI generates. An admin who has the demo email
 * but whose password is not kept (the file removed, another store's admin) cannot be signed in
 * as, nor given a new password: the new admin gets the next free email instead.
 */
async function demoAdmin(store: DemoStore, kept: DemoAdmin | undefined): Promise<DemoAdmin> {
  if (kept?.store === store.reference && (await signsIn(kept))) return kept;
  const admins = await cliJson<{ email: string }[]>(["admin", "list"]);
  const taken = new Set(admins.map((admin) => admin.email));
  let email = DEMO_ADMIN_EMAIL;
  for (let n = 2; taken.has(email); n += 1) email = DEMO_ADMIN_EMAIL.replace("@", `-${n}@`);
  const created = await cliJson<{ email: string; password: string }>([
    "admin",
    "create",
    "--email",
    email,
    "--store",
    store.reference,
  ]);
  say(
    email === DEMO_ADMIN_EMAIL
      ? `Created the back-office admin ${email} for the demo store.`
      : `The admin ${DEMO_ADMIN_EMAIL} exists, but no password of theirs for this store is kept in ${demoFile}: created ${email} instead.`,
  );
  return { email: created.email, password: created.password, store: store.reference };
}

/** The demo store and its admin, kept in `.data/demo-store.json` (mode 600: a key, a password). */
async function demoAccess(): Promise<{ store: DemoStore; admin: DemoAdmin }> {
  const text = await readFile(demoFile, "utf8").catch(() => undefined);
  const kept = text === undefined ? undefined : (JSON.parse(text) as Kept);
  const store = await demoStore(kept);
  const admin = await demoAdmin(store, kept?.admin);
  const keeping = `${JSON.stringify({ ...store, admin } satisfies Kept, null, 2)}\n`;
  if (keeping !== text) {
    // With DATABASE_URL nothing else creates the data directory.
    await mkdir(dataDir, { recursive: true });
    await writeFile(demoFile, keeping, { mode: 0o600 });
    // The mode above applies to a new file only.
    await chmod(demoFile, 0o600);
  }
  return { store, admin };
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
  await buildIfStale(WIDGETS_SCRIPT);
  await buildIfStale(BACK_OFFICE);
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
  const [{ store, admin }] = await Promise.all([
    demoAccess(),
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
  Back-office       ${backOfficeUrl}   (sign in as ${admin.email} / ${admin.password})
  Worker            1 process: orders, refunds, emails, webhooks
  Database          ${env["DATABASE_URL"] ? "DATABASE_URL" : `embedded PostgreSQL, data in ${dataDir}`}
  Demo store        reference ${store.reference}, API key in ${demoFile}

Sign in on the storefront's account page with any email, shop, check out, and watch the points;
change the programme in the back-office.
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
