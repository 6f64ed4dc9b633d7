import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import getPort from "get-port";
import pg from "pg";

/** The repository's root: the server runs from there as `pnpm start` runs it. */
export const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/**
 * A TypeScript file of the repository (`file` from its root) run by Node on the workspace's
 * sources, as `pnpm start` and `pnpm loyalty` run the server: no build needed.
 */
export function runSource(file: string, args: string[], env: NodeJS.ProcessEnv) {
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

/**
 * The real API server for the end-to-end test, as an operator starts it: its own database on
 * DATABASE_URL's server when one is set (CI), else an embedded PostgreSQL in a temporary
 * directory. It listens on 127.0.0.1 while the test page is served from localhost: another
 * origin, so the browser applies CORS. The command `seedStore` (commands.ts) reads
 * LOYALTY_E2E_ENV to seed the same server and database.
 */
export default async function setup() {
  const dataDir = await mkdtemp(join(tmpdir(), "loyalty-widgets-e2e-"));
  // As root, the embedded PostgreSQL runs as a user of its own, who must reach its directory.
  await chmod(dataDir, 0o755);
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: "test",
    LOG_LEVEL: "warn",
    HOST: "127.0.0.1",
    PORT: "0",
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
    env["EMBEDDED_POSTGRES_PORT"] = String(await getPort());
  }

  const server: ChildProcess = runSource("packages/server/src/main.ts", [], env);
  let output = "";
  const apiBase = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the server did not start:\n${output}`)),
      60_000,
    );
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
  process.env["LOYALTY_E2E_ENV"] = JSON.stringify({ ...env, LOYALTY_API_BASE: apiBase });

  return async () => {
    const exited = new Promise((resolve) => server.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
    await dropDatabase();
    await rm(dataDir, { recursive: true, force: true });
  };
}
