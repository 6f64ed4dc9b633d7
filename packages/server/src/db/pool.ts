import pg from "pg";

/** What a repository runs its SQL on: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.Pool | pg.PoolClient, "query">;

// BIGINT identifiers and counts stay within JavaScript's safe integers in this service.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export function createPool(url: string, max: number): pg.Pool {
  return new pg.Pool({
    connectionString: url,
    max,
    // A database that does not answer must fail requests quickly, not hang them.
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    application_name: "loyalty-server",
  });
}

/** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
export async function withTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  // A checked-out client has no 'error' listener of the pool's: the connection dropping between
  // two queries (the database restarting) would be an uncaught exception, ending the process.
  // The transaction's next query fails with it instead, and the client is discarded.
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on("error", onError);
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.removeListener("error", onError);
    client.release(broken);
  }
}
