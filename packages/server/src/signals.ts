/** A process's SIGTERM and SIGINT, heard from its first line on. */
export interface StopSignals {
  /** The signal heard before `onStop` was given, if any. */
  readonly pending: string | undefined;
  /** What to run on a signal (every signal: it must ignore repeats); at once if one came already. */
  onStop(stop: (signal: string) => Promise<void>): void;
}

/**
 * Listens for the stop signals before a process starts its database. Without it, a signal that
 * comes during the start-up (an embedded PostgreSQL is the process's child) kills the process
 * with Node's default action and leaves the database running; with it, the process stops once
 * started, and stops the database too.
 */
export function listenForStopSignals(): StopSignals {
  let pending: string | undefined;
  let handler: ((signal: string) => Promise<void>) | undefined;
  // A stop that fails still ends the process, with a failure code and the reason.
  const run = (stop: (signal: string) => Promise<void>, signal: string) =>
    stop(signal).catch((error: unknown) => {
      process.stderr.write(
        `Stopping failed: ${error instanceof Error ? error.stack : String(error)}\n`,
      );
      process.exit(1);
    });
  const heard = (signal: string) => {
    if (handler) void run(handler, signal);
    else pending ??= signal;
  };
  process.on("SIGTERM", heard);
  process.on("SIGINT", heard);
  return {
    get pending() {
      return pending;
    },
    onStop(stop) {
      handler = stop;
      if (pending) void run(stop, pending);
    },
  };
}
