import pg from "pg";

/** What a repository runs its SQL on: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.Pool | pg.PoolClient, "query">;

// BIGINT identifiers and counts stay within JavaScript's safe integers in this service.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function createPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // A database that does not answer must fail requests quickly, not hang them.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    application_name: "loyalty-server",
  });
  listenToEveryClient(pool);
  return pool;
}

/**
 * Gives every client of the pool an 'error' listener for its whole life. pg-pool listens to a
 * client only while it is idle, or during `pool.query`: a connection ending (the database
 * restarting, an administrator, an idle timeout) can be read in the same packet as the answer
 * that released it, after the pool handed it to the next `await pool.connect()` but before
 * that caller's code ran. An 'error' event nobody listens to is an uncaught exception, which
 * ends the process. The error is not lost: the client is marked broken, its next query fails,
 * and the pool discards it when it comes back. The pool's own 'error' event still reports idle
 * clients that fail.
 */
export function listenToEveryClient(
  pool: pg.Pool,
  onError: (error: Error) => void = () => {},
): void {
  pool.on("connect", (client) => client.on("error", onError));
}

/** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
export async function withTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    // A client whose connection failed is discarded by the pool rather than kept.
    client.release();
  }
}
