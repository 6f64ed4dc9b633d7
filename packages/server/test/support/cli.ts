import { CommanderError } from "commander";
import { createProgram } from "../../src/cli/program.js";
import { openDatabase, openRuntime } from "../../src/runtime.js";
import type { CommandResult } from "./processes.js";

/**
 * Runs `loyalty <args>` in this process, as `runCli` runs it in a child of its own: what it
 * wrote, and its exit code. `input` is what is piped to it (nothing by default).
 */
export async function runCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  input = "",
): Promise<CommandResult> {
  let stdout = "";
  let stderr = "";
  const program = createProgram({
    env,
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    readInput: () => Promise.resolve(input),
    openRuntime,
    openDatabase,
  });
  try {
    await program.parseAsync(args, { from: "user" });
    return { code: 0, stdout, stderr };
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return { code: error.exitCode, stdout, stderr };
  }
}
