import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

/**
 * What a process runs: our TypeScript sources (through tsx, as the published binaries run the
 * built ones), or `pnpm build`'s output as production runs it (`node dist/main.js`).
 */
export type Build = "source" | "dist";

const ENTRIES = {
  source: { options: ["--conditions=@loyalty/source", "--import", "tsx"], dir: "src", ext: ".ts" },
  dist: { options: [], dir: "dist", ext: ".js" },
} as const;

/** Node's arguments to run `cli` or `main` from the sources or the build, in PACKAGE_DIR. */
export function nodeArgs(entry: "cli" | "main", build: Build): string[] {
  if (build === "dist") assertBuilt();
  const { options, dir, ext } = ENTRIES[build];
  return [...options, `${dir}/${entry}${ext}`];
}

/** The newest file under `dir`, with its modification time. */
function newest(dir: string): { file: string; mtimeMs: number } {
  let found = { file: dir, mtimeMs: 0 };
  for (const name of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const file = path.join(dir, name);
    const { mtimeMs } = statSync(file);
    if (mtimeMs > found.mtimeMs) found = { file, mtimeMs };
  }
  return found;
}

/**
 * The built server and the built package it imports exist and are newer than their sources:
 * a test of the build must not pass (or fail) on an old one. The root `pnpm test` builds first.
 */
function assertBuilt(): void {
  const packages = path.resolve(PACKAGE_DIR, "..");
  const root = path.resolve(packages, "..");
  const builds = [
    { sources: path.join(PACKAGE_DIR, "src"), output: path.join(PACKAGE_DIR, "dist/cli.js") },
    { sources: path.join(PACKAGE_DIR, "src"), output: path.join(PACKAGE_DIR, "dist/main.js") },
    {
      sources: path.join(packages, "shared-types/src"),
      output: path.join(packages, "shared-types/dist/index.js"),
    },
  ];
  for (const { sources, output } of builds) {
    const shown = path.relative(root, output);
    if (!existsSync(output)) {
      throw new Error(
        `${shown} is missing: this test runs the built server; run \`pnpm build\` first (the root \`pnpm test\` does)`,
      );
    }
    const source = newest(sources);
    if (source.mtimeMs > statSync(output).mtimeMs) {
      throw new Error(
        `${shown} is older than ${path.relative(root, source.file)}: this test runs the built server; run \`pnpm build\` first (the root \`pnpm test\` does)`,
      );
    }
  }
}

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
  build: Build = "source",
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs("cli", build), ...args], {
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

/** Runs the server (src/main.ts, or dist/main.js) as an operator starts it. */
export function spawnServer(env: NodeJS.ProcessEnv, build: Build = "source"): ChildProcess {
  return spawn(process.execPath, nodeArgs("main", build), {
    cwd: PACKAGE_DIR,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Starts the server and resolves once it says it is listening. */
export function startServer(
  env: NodeJS.ProcessEnv,
  build: Build = "source",
): Promise<{ child: ChildProcess; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawnServer(env, build);
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
