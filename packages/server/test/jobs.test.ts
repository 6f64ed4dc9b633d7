import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from "vitest";
import type { Queryable } from "../src/db/pool.js";
import { GRAPHILE_WORKER_VERSION } from "../src/jobs/graphile-worker-internals.js";
import { enqueue, jobSql } from "../src/jobs/queue.js";
import { cronItems, taskRegistry, type TaskName } from "../src/jobs/registry.js";
import { taskList } from "../src/jobs/tasks.js";
import { eventually, startTestApp, type TestApp } from "./support/app.js";

/**
 * The job registry: one declaration per task, read by enqueue, the SQL adding jobs, the
 * workers and their crontab. Every wait is on a state of the job queue's own table, never on
 * time: a job is found by its key, and its outcome read from `attempts`, `last_error`,
 * `max_attempts` (a job that fails is retried only while attempts < max_attempts).
 */

interface JobRow {
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  locked_at: Date | null;
}

let app: TestApp;
let creditBonus: MockInstance<(referralId: number) => Promise<void>>;

beforeAll(async () => {
  app = await startTestApp();
  // The handler stands for any: what it was given is the point, not what it does with it.
  creditBonus = vi
    .spyOn(app.context.services.referrals, "creditBonus")
    .mockImplementation((referralId) =>
      referralId === 13 ? Promise.reject(new Error("the handler failed")) : Promise.resolve(),
    );
  await app.startWorkers();
});
afterAll(() => app.close());

/** The job of this key, or undefined once it is gone (completed). */
async function job(key: string): Promise<JobRow | undefined> {
  const { rows } = await app.context.pool.query<JobRow>(
    `SELECT attempts, max_attempts, last_error, locked_at FROM graphile_worker.jobs
     WHERE key = $1`,
    [key],
  );
  return rows[0];
}

/** Resolves once the job of this key completed and left the queue. */
async function completed(key: string): Promise<void> {
  await eventually(async () => ((await job(key)) ? undefined : true));
}

/** Resolves with the job once an attempt of it failed and the queue recorded it. */
async function failed(key: string): Promise<JobRow> {
  return eventually(async () => {
    const row = await job(key);
    return row && row.last_error !== null && row.locked_at === null ? row : undefined;
  });
}

describe("the graphile-worker internals", () => {
  it("were written for the installed graphile-worker: re-read them before upgrading", () => {
    const installed = (
      createRequire(import.meta.url)("graphile-worker/package.json") as { version: string }
    ).version;
    expect(
      installed,
      "src/jobs/graphile-worker-internals.ts relies on private fields of graphile-worker " +
        `${GRAPHILE_WORKER_VERSION}: check each against the installed version, then update ` +
        "GRAPHILE_WORKER_VERSION",
    ).toBe(GRAPHILE_WORKER_VERSION);
  });
});

describe("the registry", () => {
  it("types every job added: an unknown task or a payload of another shape does not compile", () => {
    const typeChecked = (db: Queryable) => [
      // @ts-expect-error: no such task
      enqueue(db, "process-orders", { orderId: 1 }),
      // @ts-expect-error: orderId is a number
      enqueue(db, "process-order", { orderId: "1" }),
      // @ts-expect-error: a reconciliation carries nothing
      enqueue(db, "reconcile-claims", { orderId: 1 }),
      // @ts-expect-error: the payload of a refund is a refundId
      jobSql("process-refund", { orderId: "id" }),
    ];
    expect(typeChecked).toBeTypeOf("function");
    expect(jobSql("process-refund", { refundId: "id" })).toEqual({
      task: "process-refund",
      payload: "json_build_object('refundId', id)",
    });
  });

  it("gives the workers a task for each of its entries", () => {
    expect(Object.keys(taskList(app.context.services)).sort()).toEqual(
      Object.keys(taskRegistry).sort(),
    );
  });

  it("runs a job added by enqueue with its payload", async () => {
    const key = `typed-${randomUUID()}`;
    await enqueue(app.context.pool, "credit-referral-bonus", { referralId: 4242 }, { jobKey: key });
    await completed(key);
    expect(creditBonus).toHaveBeenCalledWith(4242);
  });

  it("fails a job with a malformed payload for good, without its handler or its contents in the logs", async () => {
    const key = `malformed-${randomUUID()}`;
    const secret = `secret-${randomUUID()}`;
    const task: TaskName = "credit-referral-bonus";
    const calls = creditBonus.mock.calls.length;
    // As SQL written against another release could add it.
    await app.context.pool.query(`SELECT graphile_worker.add_job($1, $2::json, job_key => $3)`, [
      task,
      JSON.stringify({ referralId: secret }),
      key,
    ]);
    const row = await failed(key);
    expect(row).toMatchObject({ attempts: 1, max_attempts: 1 });
    expect(row.last_error).toMatch(/^invalid payload, not retried: referralId: /);
    expect(row.last_error).not.toContain(secret);
    expect(creditBonus.mock.calls.length).toBe(calls);
    const logs = app.logs.join("");
    expect(logs).toContain("invalid payload, not retried");
    expect(logs).not.toContain(secret);
  });

  it("leaves the retries of a job whose handler failed to the queue", async () => {
    const key = `failing-${randomUUID()}`;
    await enqueue(app.context.pool, "credit-referral-bonus", { referralId: 13 }, { jobKey: key });
    const row = await failed(key);
    expect(row.last_error).toBe("the handler failed");
    expect(row.max_attempts).toBeGreaterThan(row.attempts);
  });
});

describe("the crontab", () => {
  const scheduled = Object.entries(taskRegistry)
    .filter(([, definition]) => definition.cron !== undefined)
    .map(([task]) => task)
    .sort();

  it("is the registry's scheduled tasks", async () => {
    expect(scheduled.length).toBeGreaterThan(0);
    expect(cronItems().map((item) => item.task)).toEqual(expect.arrayContaining(scheduled));
    expect(cronItems()).toHaveLength(scheduled.length);
    // The workers registered them with the job queue as they started.
    const known = await eventually(async () => {
      const { rows } = await app.context.pool.query<{ identifier: string }>(
        `SELECT identifier FROM graphile_worker._private_known_crontabs ORDER BY identifier`,
      );
      return rows.length === scheduled.length ? rows.map((row) => row.identifier) : undefined;
    });
    expect(known).toEqual(scheduled);
  });

  it("adds jobs whose payload (the crontab's `_cron`) their task accepts", async () => {
    const keys = await Promise.all(
      scheduled.map(async (task) => {
        const key = `cron-${task}-${randomUUID()}`;
        await app.context.pool.query(
          `SELECT graphile_worker.add_job($1, $2::json, job_key => $3)`,
          [task, JSON.stringify({ _cron: { ts: new Date().toISOString() } }), key],
        );
        return key;
      }),
    );
    for (const key of keys) await completed(key);
  });
});
