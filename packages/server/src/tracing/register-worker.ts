import { startTracing } from "./start.js";

/**
 * The `loyalty` binary's first import (src/cli.ts). Of its commands only `worker` runs long
 * enough to trace (its jobs); the others load nothing of OpenTelemetry, traced or not.
 */
const command = process.argv.slice(2).find((arg) => !arg.startsWith("-"));
if (command === "worker") startTracing("loyalty-worker");
