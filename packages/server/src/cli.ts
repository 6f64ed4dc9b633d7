#!/usr/bin/env node
// First: `loyalty worker` traces, when the environment asks for it, before pg is loaded.
import "./tracing/register-worker.js";
import { CommanderError } from "commander";
import { createProgram } from "./cli/program.js";
import { openDatabase, openRuntime } from "./runtime.js";

/** The `loyalty` binary: the program on this process's arguments, streams and environment. */

async function readInput(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const program = createProgram({
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  readInput,
  openRuntime,
  openDatabase,
});
try {
  await program.parseAsync(process.argv);
} catch (error) {
  // A command that failed, or commander's usage errors and help: the message is written.
  if (!(error instanceof CommanderError)) throw error;
  process.exit(error.exitCode);
}
