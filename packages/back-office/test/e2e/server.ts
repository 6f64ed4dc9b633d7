/*
 * The real API server and the operator's CLI, run from the workspace's sources. A copy of
 * packages/widgets/test/e2e/global-setup.ts (importing it across packages breaks this
 * package's TypeScript rootDir): keep the two alike.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { access, chmod, cp, mkdtemp, rm } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

/** The repository's root: the server runs from there as `pnpm start` runs it. */
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/**
 * A TypeScript file of the repository (`file` from its root) run by Node on the workspace's
 * sources, as `pnpm start:server` and `pnpm loyalty` run them: no build needed.
 */
function runSource(file: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(
    process.execPath,
    ["--conditions=@loyalty/source", "--import", "tsx", file, ...args],
    { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
}

/** Runs a source file to its end; its standard output, or an error with what it said. */
export async function runSourceToEnd(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const child = runSource(file, args, env);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`${file} ${args.join(" ")} failed (${code}): ${stderr}`);
  return stdout;
}

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export interface RunningServer {
  /** The server's environment (its database, its keys), for the CLI to reach the same data. */
  env: Record<string, string>;
  /** `http://127.0.0.1:<port>`: the API, and the back-office under /back-office/. */
  url: string;
  stop: () => Promise<void>;
}

/**
 * The real API server, as an operator starts it, with its job workers in the process: its own
 * database on DATABASE_URL's server when one is set (CI), else an embedded PostgreSQL in a
 * temporary directory. It serves the back-office's `dist/` as it was when it started.
 */
export async function startServer(): Promise<RunningServer> {
  const dataDir = await mkdtemp(join(tmpdir(), "loyalty-back-office-e2e-"));
  // As root, the embedded PostgreSQL runs as a user of its own, who must reach its directory.
  await chmod(dataDir, 0o755);
  // A copy of the build: a `vite build` run meanwhile (another package's tests, an editor's)
  // would replace the hashed chunks the open page still loads.
  const built = fileURLToPath(new URL("../../dist", import.meta.url));
  await access(join(built, "index.html")).catch(() => {
    throw new Error(`${built} has no index.html: run \`vite build\` first (\`pnpm test\` does).`);
  });
  await cp(built, join(dataDir, "back-office"), { recursive: true });
  const env: Record<string, string> = {
    NODE_ENV: "test",
    LOG_LEVEL: "warn",
    HOST: "127.0.0.1",
    PORT: "0",
    WORKERS: "in-process",
    BACK_OFFICE_DIR: join(dataDir, "back-office"),
    LOYALTY_DATA_DIR: dataDir,
    LOYALTY_MASTER_KEY: randomBytes(32).toString("hex"),
  };
  let dropDatabase = async () => {};
  const serverUrl = process.env["DATABASE_URL"];
  if (serverUrl) {
    // The naming the server's tests use: their setup drops what a killed run left behind.
    const name = `loyalty_test_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    env["DATABASE_URL"] = url.toString();
    dropDatabase = async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    };
  } else {
    env["EMBEDDED_POSTGRES_PORT"] = String(await freePort());
  }

  const server = runSource("packages/server/src/main.ts", [], env);
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Stopped, so that it stops its embedded PostgreSQL too.
      server.kill("SIGTERM");
      reject(new Error(`the server did not start:\n${output}`));
    }, 60_000);
    server.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    server.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const port = /listening on http:\/\/[^\s]*:(\d+)/.exec(output)?.[1];
      if (port) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${port}`);
      }
    });
    server.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}):\n${output}`));
    });
  });

  return {
    env,
    url,
    async stop() {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGTERM");
      await exited;
      await dropDatabase();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
