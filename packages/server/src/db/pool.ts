import pg from "pg";

/** What a repository runs its SQL on: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.Pool | pg.PoolClient, "query">;

// BIGINT identifiers and counts stay within JavaScript's safe integers in this service.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * How many distinct statements a process prepares by name. The code's statements are a few
 * hundred fixed texts; past this, a statement runs unnamed (parsed and planned each time), so
 * that text built at run time could never fill each connection with prepared statements.
 */
export const MAX_NAMED_STATEMENTS = 1000;

/** Each statement's name, the same on every connection of the process. */
const statementNames = new Map<string, string>();
let namedSoFar = 0;

function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined) {
    if (statementNames.size >= MAX_NAMED_STATEMENTS) return undefined;
    name = `loyalty_${++namedSoFar}`;
    statementNames.set(text, name);
  }
  return name;
}

/** How many statements the process has named so far (the tests check the bound). */
export function namedStatements(): number {
  return statementNames.size;
}

/**
 * What PostgreSQL answers when a prepared statement's result columns changed under it: a
 * migration added a column to a table it reads with `*`, while this process was running.
 */
function staleResultType(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as { code?: string }).code === "0A000" &&
    error.message.includes("cached plan must not change result type")
  );
}

/**
 * A client that prepares every statement sent with parameters under a name, once per
 * connection: PostgreSQL then neither parses it again nor, once a generic plan is as good as
 * the plans made for each call (its own choice, after five), plans it again. Parsing and
 * planning were most of the database's work for the API's short statements: a history read
 * cost 1.0 to 1.1 ms of PostgreSQL's CPU unnamed, 0.26 to 0.33 ms named (BENCHMARKS.md, "What
 * each change bought"). Statements without parameters (BEGIN, SET LOCAL, a migration's script)
 * and statements given as an object (`{ text, values }`: one whose best plan depends on its
 * values, such as the customer search's LIKE prefix) go as they are, planned each time.
 *
 * The names hold per connection, so a pooler in front of PostgreSQL must be in session mode,
 * which LISTEN needs anyway (docs/operators.md). A statement whose result columns a migration
 * changed fails at most once per process: outside a transaction it runs again at once under a
 * new name, inside one the transaction fails as a conflict would, and every connection prepares
 * it anew.
 */
class PreparingClient extends pg.Client {
  // @ts-expect-error -- one signature for pg's overloads: a call is handed on unchanged
  // unless it is (text, values[, callback]), as repositories and pg-pool's query send it.
  override query(config: unknown, values?: unknown, callback?: unknown): unknown {
    const name = typeof config === "string" && Array.isArray(values) && statementName(config);
    if (!name) {
      // @ts-expect-error -- as given
      return super.query(config, values, callback);
    }
    const text = config;
    const run = (statement: string, done?: Done) =>
      // @ts-expect-error -- pg's config form, with or without a callback
      super.query({ name: statement, text, values }, done);
    /** Whether to run it again under its new name. */
    const again = (error: unknown) => {
      if (!staleResultType(error)) return false;
      if (statementNames.get(text) === name) statementNames.set(text, `loyalty_${++namedSoFar}`);
      // pg reports the error before the server's ReadyForQuery: this is the status before the
      // statement, which a statement with parameters (never BEGIN or COMMIT) does not change.
      return this.getTransactionStatus() === "I";
    };
    const renamed = () => statementNames.get(text) as string;
    if (typeof callback === "function") {
      return run(name, (error, result) => {
        if (error && again(error)) void run(renamed(), callback as Done);
        else (callback as Done)(error, result);
      });
    }
    return (run(name) as Promise<pg.QueryResult>).catch((error: unknown) => {
      if (!again(error)) throw error;
      return run(renamed());
    });
  }
}

type Done = (error: Error, result: pg.QueryResult) => void;

export function createPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({
    Client: PreparingClient as unknown as typeof pg.Client,
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
