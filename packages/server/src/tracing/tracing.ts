import type { TaskList } from "graphile-worker";

/**
 * What the rest of the server asks of tracing once it is on. Off (the default), nothing of
 * OpenTelemetry is loaded and each of these answers as if it did not exist: a logger without
 * mixin, the job queue's own tasks, nothing to flush.
 */
export interface ActiveTracing {
  /** The active span's ids, for the log line being written (none outside a span). */
  logFields: () => Record<string, string>;
  /** The tasks, each job run in a span of its own: its queries become its children. */
  traceJobs: (tasks: TaskList) => TaskList;
  /** Exports the spans ended so far, then stops tracing. Never rejects. */
  shutdown: () => Promise<void>;
}

let active: ActiveTracing | undefined;

/** Called once, by start.ts, when the process traces. */
export function setActiveTracing(tracing: ActiveTracing): void {
  active = tracing;
}

/** pino's `mixin` while the process traces; undefined otherwise, so that a log line pays nothing. */
export function traceLogMixin(): (() => Record<string, string>) | undefined {
  return active?.logFields;
}

/** The job queue's tasks, traced when the process traces. */
export function tracedTasks(tasks: TaskList): TaskList {
  return active ? active.traceJobs(tasks) : tasks;
}

/** Exports the spans not yet sent; the last step of a process's graceful stop. */
export async function stopTracing(): Promise<void> {
  await active?.shutdown();
}
