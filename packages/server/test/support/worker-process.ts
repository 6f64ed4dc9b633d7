import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { TEST_MASTER_KEY } from "./app.js";
import { environment, nodeArgs, type Build } from "./processes.js";

const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** Resolves with the exit code (null when a signal ended it) once the process is gone. */
function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });
}

export interface WorkerProcess {
  child: ChildProcess;
  /** Everything it wrote so far (its log lines included). */
  output(): string;
  /** SIGKILL, and resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGTERM (its jobs finish first), and resolves with its exit code. */
  stop(): Promise<number | null>;
}

/** `loyalty worker` in a process of its own; resolves once it says its workers run. */
export function startWorkerProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
  build: Build = "source",
  options: { niceness?: number } = {},
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [...nodeArgs("cli", build), "worker"], {
    cwd: PACKAGE_DIR,
    env: environment({
      DATABASE_URL: databaseUrl,
      LOYALTY_MASTER_KEY: TEST_MASTER_KEY,
      WORKER_HEARTBEAT_MS: "200",
      ...env,
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Its main thread (the one that connects), before it has had time to connect anywhere.
  if (options.niceness !== undefined && child.pid) os.setPriority(child.pid, options.niceness);
  let output = "";
  // Read to the end, not only up to the banner: a full pipe would block the worker.
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const worker: WorkerProcess = {
    child,
    output: () => output,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited(child);
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      return exited(child);
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the worker did not start:\n${output}`));
    }, 60_000);
    const onExit = (code: number | null) => {
      clearTimeout(timer);
      reject(new Error(`the worker exited with ${code}:\n${output}`));
    };
    child.once("exit", onExit);
    const ready = () => {
      if (!output.includes("Loyalty workers running")) return;
      clearTimeout(timer);
      child.removeListener("exit", onExit);
      child.stdout?.removeListener("data", ready);
      resolve(worker);
    };
    child.stdout?.on("data", ready);
  });
}
