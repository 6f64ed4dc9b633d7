import type { CronItemOptions, JobHelpers, Task, TaskList } from "graphile-worker";
import type { z } from "zod";
import type { Services } from "../runtime.js";
import { lastAttempt } from "./graphile-worker-internals.js";

/** When the workers' crontab adds a job of a task: on one worker of all those running. */
export interface CronSchedule {
  /** A cron pattern, in UTC (`* * * * *`: every minute). */
  match: string;
  options?: CronItemOptions;
}

/**
 * One task of the registry (registry.ts): what its jobs carry, and how the workers run it
 * with the services it uses (`Uses`, a part of `Services`).
 */
export interface TaskDefinition<Payload extends z.ZodType = z.ZodType, Uses = Services> {
  /** Jobs added by the crontab carry `_cron` besides, which the schema leaves out. */
  payload: Payload;
  cron?: CronSchedule;
  /** The task as the job queue runs it: its handler sees only a payload the schema accepted. */
  task(services: Uses): Task;
}

/**
 * A payload its task's schema refuses: running the job again would refuse it again, so the
 * workers fail it for good (see `failingForGood`). The message names the fields and what was
 * wrong with them, never their values: it is logged and kept as the job's last_error.
 */
export class InvalidPayloadError extends Error {
  constructor(error: z.ZodError) {
    const issues = error.issues
      .map((issue) => `${issue.path.join(".") || "(payload)"}: ${issue.message}`)
      .join("; ");
    super(`invalid payload, not retried: ${issues}`);
    this.name = "InvalidPayloadError";
  }
}

/**
 * A task, its payload checked before its handler runs: a job is added by SQL as often as by
 * `enqueue`, and an older or newer release may have added it.
 */
export function defineTask<Payload extends z.ZodType, Uses>(definition: {
  payload: Payload;
  handler: (services: Uses) => (payload: z.output<Payload>, helpers: JobHelpers) => Promise<void>;
  cron?: CronSchedule;
}): TaskDefinition<Payload, Uses> {
  const { payload: schema, handler, cron } = definition;
  return {
    payload: schema,
    ...(cron && { cron }),
    task: (services) => {
      const run = handler(services);
      return async (payload, helpers) => {
        const parsed = schema.safeParse(payload);
        if (!parsed.success) throw new InvalidPayloadError(parsed.error);
        await run(parsed.data, helpers);
      };
    },
  };
}

/** The tasks of `definitions` as the job queue runs them, with the services they use. */
export function tasksOf<Names extends string, Uses>(
  definitions: Record<Names, TaskDefinition<z.ZodType, Uses>>,
  services: Uses,
): Record<Names, Task> {
  const entries: [string, TaskDefinition<z.ZodType, Uses>][] = Object.entries(definitions);
  return Object.fromEntries(
    entries.map(([name, definition]) => [name, definition.task(services)]),
  ) as Record<Names, Task>;
}

/** The tasks, a job whose payload was refused failing at once and for good. */
export function failingForGood(tasks: TaskList): TaskList {
  return Object.fromEntries(
    Object.entries(tasks).map(([name, task]: [string, Task | undefined]) => [
      name,
      task &&
        (async (payload: unknown, helpers: JobHelpers) => {
          try {
            return await task(payload, helpers);
          } catch (error) {
            if (error instanceof InvalidPayloadError) await lastAttempt(helpers);
            throw error;
          }
        }),
    ]),
  );
}
