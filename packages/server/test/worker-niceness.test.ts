import { statSync } from "node:fs";
import os from "node:os";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./support/database.js";
import { startWorkerProcess, type WorkerProcess } from "./support/worker-process.js";

/**
 * `nice -n 10 loyalty worker` on the API's machine: the programme's batch jobs spend their time
 * in PostgreSQL's backends, so the worker's sessions must run below the API's with it, or the
 * niceness leaves the batch work level with the API's own queries.
 */
describe("a worker run below the API", () => {
  let database: TestDatabase;
  let admin: pg.Client;
  let worker: WorkerProcess;

  beforeAll(async () => {
    database = await createTestDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    worker = await startWorkerProcess(database.url, { LOG_LEVEL: "info" }, "source", {
      niceness: 7,
    });
  });

  afterAll(async () => {
    await worker?.stop();
    await admin?.end();
    await database?.drop();
  });

  /** The backends serving the worker process, and this test's own. */
  async function backends(): Promise<{ pid: number; application: string }[]> {
    const { rows } = await admin.query<{ pid: number; application: string }>(
      `SELECT pid, application_name AS application FROM pg_stat_activity
       WHERE datname = current_database() AND backend_type = 'client backend'`,
    );
    return rows;
  }

  it("runs its database sessions at its niceness, and nobody else's", async () => {
    const own = (await admin.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0];
    expect(own?.pid).toBeGreaterThan(0);
    // Lowering another process's priority takes its user, or root: the worker says which.
    const postgresUser = statSync(`/proc/${own?.pid}`).uid;
    const permitted = process.getuid?.() === 0 || postgresUser === process.getuid?.();
    // Both of its pools (the job queue's and the one its jobs query through), each connection
    // once it is made: one being opened as this reads is lowered when its handshake ends.
    await expect
      .poll(
        async () => {
          const rows = await backends();
          return {
            worker: rows.some((row) => row.application === "loyalty-worker"),
            jobs: rows.some((row) => row.application === "loyalty-server"),
            niceness: [
              ...new Set(
                rows.filter((row) => row.pid !== own?.pid).map((row) => os.getPriority(row.pid)),
              ),
            ],
          };
        },
        { timeout: 10_000 },
      )
      .toEqual({ worker: true, jobs: true, niceness: [permitted ? 7 : 0] });
    expect(worker.output()).toContain(
      permitted
        ? "database sessions run at this process's niceness"
        : "PostgreSQL's sessions cannot be lowered with it",
    );
    // This test's own session (a process at niceness 0) is left where it was.
    expect(os.getPriority(own?.pid)).toBe(0);
  });
});
