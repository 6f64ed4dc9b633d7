import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "pg";
import {
  createPool,
  MAX_NAMED_STATEMENTS,
  namedStatements,
  withTransaction,
} from "../src/db/pool.js";
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

describe("statements with parameters", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  const prepared = async (client: { query: typeof Client.prototype.query }) =>
    (
      await client.query<{ statement: string }>(
        "SELECT statement FROM pg_prepared_statements ORDER BY prepare_time",
      )
    ).rows.map((row) => row.statement);

  // Parsing and planning the API's short statements was most of PostgreSQL's work per request.
  it("are prepared once per connection and reused", async () => {
    const pool = createPool(database.url, 1);
    try {
      const text = "SELECT $1::int + 1 AS n";
      for (let i = 0; i < 3; i++) {
        expect((await pool.query<{ n: number }>(text, [i])).rows).toEqual([{ n: i + 1 }]);
      }
      await withTransaction(pool, async (client) => {
        expect((await client.query<{ n: number }>(text, [41])).rows).toEqual([{ n: 42 }]);
        // Once, whoever sent it; the unparameterised BEGIN and this look-up are not kept.
        expect(await prepared(client)).toEqual([text]);
      });
    } finally {
      await pool.end();
    }
  });

  // A migration run by a newer process while this one serves: the statement read `*` of the
  // table, whose columns changed.
  it("answer with the new columns after a migration changed them", async () => {
    const pool = createPool(database.url, 1);
    try {
      await pool.query("CREATE TABLE migrated (id int PRIMARY KEY)");
      await pool.query("INSERT INTO migrated VALUES (1)");
      const text = "SELECT * FROM migrated WHERE id = $1";
      expect((await pool.query(text, [1])).rows).toEqual([{ id: 1 }]);
      await pool.query("ALTER TABLE migrated ADD COLUMN label text DEFAULT 'added'");
      expect((await pool.query(text, [1])).rows).toEqual([{ id: 1, label: "added" }]);
      // Inside a transaction the statement fails once, as a conflict would, and then works.
      await pool.query("ALTER TABLE migrated ADD COLUMN more int DEFAULT 2");
      await expect(withTransaction(pool, (client) => client.query(text, [1]))).rejects.toThrow(
        /cached plan must not change result type/,
      );
      const { rows } = await withTransaction(pool, (client) => client.query(text, [1]));
      expect(rows).toEqual([{ id: 1, label: "added", more: 2 }]);
    } finally {
      await pool.end();
    }
  });

  it("are named up to a bound, then sent unnamed", async () => {
    const pool = createPool(database.url, 1);
    try {
      // Names are the process's: other tests of this process may have taken some already.
      const free = MAX_NAMED_STATEMENTS - namedStatements();
      expect(free).toBeGreaterThan(MAX_NAMED_STATEMENTS / 2);
      const texts = Array.from({ length: free + 20 }, (_, i) => `SELECT $1::int AS "bound${i}"`);
      for (const [i, text] of texts.entries()) {
        expect((await pool.query(text, [i])).rows).toEqual([{ [`bound${i}`]: i }]);
      }
      expect(namedStatements()).toBe(MAX_NAMED_STATEMENTS);
      const client = await pool.connect();
      try {
        // This connection ran them all: exactly the first `free` were prepared.
        const { rows } = await client.query<{ statement: string }>(
          `SELECT statement FROM pg_prepared_statements WHERE statement LIKE 'SELECT $1::int AS "bound%'`,
        );
        expect(rows.length).toBe(free);
        expect(rows.map((row) => row.statement)).not.toContain(texts.at(-1));
      } finally {
        client.release();
      }
    } finally {
      await pool.end();
    }
  });
});
