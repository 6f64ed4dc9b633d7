import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** Node running our TypeScript sources as the published binaries run the built ones. */
const NODE_ARGS = ["--conditions=@loyalty/source", "--import", "tsx"];

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function environment(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "error" };
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Runs the `loyalty` CLI to completion, with `input` (or nothing) on its standard input. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_ARGS, "src/cli.ts", ...args], {
      cwd: PACKAGE_DIR,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin.end(input);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the server (src/main.ts) as an operator starts it. */
export function spawnServer(env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [...NODE_ARGS, "src/main.ts"], {
    cwd: PACKAGE_DIR,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Starts the server and resolves once it says it is listening. */
export function startServer(
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawnServer(env);
    let output = "";
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Loyalty API listening on")) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

export function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}
