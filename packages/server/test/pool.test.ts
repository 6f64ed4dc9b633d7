import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, withTransaction } from "../src/db/pool.js";
import { createTestDatabase, type TestDatabase } from "./support/database.js";

/** Blocks the event loop, so that what the database sends meanwhile is read in one go. */
function busyWait(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // nothing: the point is not to return to the event loop
  }
}

describe("a connection the database ends as the pool hands it over", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  // The database ending a session right after a query's answer (a restart, an administrator,
  // an idle timeout) can arrive in the same read as the answer. The pool hands the client to
  // the next waiting transaction between the two messages, before that transaction's code has
  // run: the end came as an 'error' event on a client nobody listened to, an uncaught
  // exception that ended the whole process.
  it("fails that transaction, not the process, and serves the next one", async () => {
    const pool = createPool(database.url, 1);
    try {
      await pool.query("SELECT 1");
      // The session ends 20 ms after its next query: while the event loop is blocked below.
      const ending = pool.query("SELECT set_config('idle_session_timeout', '20ms', false)");
      const waiting = withTransaction(pool, (client) => client.query("SELECT 1"));
      const outcome = waiting.then(
        () => "committed",
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      setImmediate(() => busyWait(300));
      await ending;
      expect(await outcome).toMatch(/not queryable|terminat/i);
      // The broken connection was discarded: the next transaction gets a new one.
      const { rows } = await withTransaction(pool, (client) =>
        client.query<{ n: number }>("SELECT 2 AS n"),
      );
      expect(rows).toEqual([{ n: 2 }]);
    } finally {
      await pool.end();
    }
  });
});
