import { randomUUID } from "node:crypto";
import pg from "pg";
import type { Logger } from "pino";

/**
 * The channel the triggers of the points-engine migration notify, with the changed store's id
 * as payload. A bare `NOTIFY loyalty_store_changed` (no store id) makes every process forget
 * every store: an operator's way to flush the caches.
 */
export const STORE_CHANGED_CHANNEL = "loyalty_store_changed";

/**
 * Barriers and their acknowledgements: a listener acknowledges a barrier once it processed
 * every notification committed before it (PostgreSQL delivers them in commit order).
 */
const BARRIER_CHANNEL = "loyalty_store_barrier";
/**
 * The name listening connections take once they listen to barriers: writers read the pids of
 * the sessions bearing it. Versioned, so that processes of a release without barriers (during a
 * rolling deploy) are not waited for.
 */
export const LISTENER_NAME = "loyalty-store-changes/2";

/** Keeps store data in memory and must forget it when the database says it changed. */
export interface StoreChangeSubscriber {
  /** A store's configuration changed: its row, rules, clubs, rewards or widgets. */
  storeChanged(storeId: number): void;
  /** Notifications may have been missed: anything held may be stale. */
  everythingChanged(): void;
}

/** What a cache needs of the listener. */
export interface StoreChanges {
  /** False whenever a change could go unheard: memory must not be trusted then. */
  readonly listening: boolean;
  subscribe(subscriber: StoreChangeSubscriber): void;
  /** Resolves once every listening process has processed the changes committed so far. */
  barrier(): Promise<void>;
}

/**
 * What a cache needs to decide whether a read may be kept: a read notes `now()` before it
 * starts, and keeps what it read only if nothing it depends on changed since. A read of one
 * store is spoiled only by a change of that store (or of everything): on a server with many
 * stores, the other stores' changes must not keep a store out of memory (the failed
 * authentication limit lets only credentials held in memory through).
 */
export class ChangeClock {
  private tick = 0;
  private anyAt = 0;
  private everythingAt = 0;
  /** The tick of each store's last change; at most one entry per store. */
  private readonly storeAt = new Map<number, number>();

  now(): number {
    return this.tick;
  }

  storeChanged(storeId: number): void {
    this.tick += 1;
    this.anyAt = this.tick;
    this.storeAt.set(storeId, this.tick);
  }

  everythingChanged(): void {
    this.tick += 1;
    this.anyAt = this.tick;
    this.everythingAt = this.tick;
    this.storeAt.clear();
  }

  /** Whether what was read of this store since `since` is still current. */
  storeUnchangedSince(since: number, storeId: number): boolean {
    return this.everythingAt <= since && (this.storeAt.get(storeId) ?? 0) <= since;
  }

  /** Whether nothing changed since `since` (a read that found no store: any change may add it). */
  nothingChangedSince(since: number): boolean {
    return this.anyAt <= since;
  }
}

/** How long a back-office write waits for the other processes to acknowledge its change. */
const BARRIER_TIMEOUT_MS = 2_000;

export interface StoreChangeListenerOptions {
  connectionString: string;
  logger: Logger;
  /** Delay before the first reconnection; it doubles on each failure up to maxRetryDelayMs. */
  minRetryDelayMs?: number;
  maxRetryDelayMs?: number;
  /**
   * How often the idle connection is probed. A socket that died silently (a firewall dropping
   * idle flows, a failover) reports nothing, and caches would serve stale data forever.
   */
  heartbeatMs?: number;
}

/**
 * One dedicated connection LISTENing on the store change channel (a pooled one would be handed
 * to other queries and lose the LISTEN). Every process runs one, so a change made anywhere,
 * even by plain SQL, reaches the memory of every process.
 */
export class StoreChangeListener implements StoreChanges {
  private readonly subscribers: StoreChangeSubscriber[] = [];
  private readonly logger: Logger;
  private readonly minRetryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly heartbeatMs: number;
  private running = false;
  private isListening = false;
  /** The connection in use, connecting or listening; undefined between attempts. */
  private client: pg.Client | undefined;
  private attempt: Promise<void> = Promise.resolve();
  private closing: Promise<void> = Promise.resolve();
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  /** Writes waiting for acknowledgements of their barrier, by barrier token: the listening
   * sessions (backend pids) yet to acknowledge, or undefined while they are being read. */
  private readonly barriers = new Map<
    string,
    { waiting: Set<number> | undefined; acknowledged: Set<number>; done: () => void }
  >();
  /** The listening connection's queries, one after another (pg 9 refuses overlapping ones). */
  private queries: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: StoreChangeListenerOptions) {
    this.logger = options.logger;
    this.minRetryDelayMs = options.minRetryDelayMs ?? 250;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
    this.heartbeatMs = options.heartbeatMs ?? 15_000;
  }

  get listening(): boolean {
    return this.isListening;
  }

  subscribe(subscriber: StoreChangeSubscriber): void {
    this.subscribers.push(subscriber);
  }

  /**
   * Resolves once the first attempt is over: listening, or failed and retrying in the
   * background (caches read through to the database meanwhile).
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.connect();
    await this.attempt;
  }

  /** Closes the connection and clears every timer; the process may then exit on its own. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.retryTimer);
    // A client ended while it connects never settles its connect(): let the attempt finish
    // first (the connection and query timeouts bound it).
    await this.attempt;
    if (this.client) this.drop(this.client);
    await this.closing;
  }

  private connect(): void {
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      application_name: "loyalty-store-changes",
      connectionTimeoutMillis: 5_000,
      // Bounds the LISTEN and the heartbeat: a query that never answers means a dead link.
      query_timeout: 5_000,
      keepAlive: true,
    });
    this.client = client;
    this.queries = Promise.resolve();
    client.on("notification", (message) =>
      message.channel === BARRIER_CHANNEL
        ? this.barrierMessage(client, message)
        : this.notified(message.payload),
    );
    // Kept after the drop too: an 'error' event without a listener would crash the process.
    client.on("error", (error) => this.drop(client, error));
    client.on("end", () => this.drop(client, new Error("connection ended")));
    this.attempt = this.listen(client);
  }

  /**
   * Resolves once every listening process has processed every change committed before the
   * call: a back-office write awaits it before answering, so that a storefront read that
   * follows, on any process, sees the change. PostgreSQL delivers notifications to each
   * listener in commit order, so a process that acknowledges the barrier notified after the
   * write has already forgotten what the write changed. Processes are counted by the name
   * their listening connection takes; one that does not answer within a bound is not awaited.
   * Without a listener (the CLI) there is no one to tell.
   */
  async barrier(): Promise<void> {
    const client = this.client;
    if (!this.isListening || !client) return;
    const token = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const barrier = {
      waiting: undefined as Set<number> | undefined,
      acknowledged: new Set<number>(),
      done: () => {},
    };
    const acknowledged = new Promise<void>((resolve) => (barrier.done = resolve));
    this.barriers.set(token, barrier);
    try {
      const { rows } = await this.query<{ pid: number }>(
        client,
        `SELECT pid FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = $1`,
        [LISTENER_NAME],
      );
      // Acknowledgements that came before the listeners were read count too.
      barrier.waiting = new Set(
        rows.map((row) => row.pid).filter((pid) => !barrier.acknowledged.has(pid)),
      );
      if (barrier.waiting.size === 0) barrier.done();
      await this.query(client, `SELECT pg_notify($1, $2)`, [BARRIER_CHANNEL, `barrier:${token}`]);
      const settled = await Promise.race([
        acknowledged.then(() => true),
        new Promise<false>((resolve) => (timer = setTimeout(resolve, BARRIER_TIMEOUT_MS, false))),
      ]);
      if (!settled) {
        this.logger.warn(
          { unanswered: [...(barrier.waiting ?? [])], timeoutMs: BARRIER_TIMEOUT_MS },
          "store change barrier: some listening sessions did not acknowledge; answering anyway",
        );
      }
    } catch (error) {
      this.logger.warn({ err: error }, "store change barrier failed");
    } finally {
      clearTimeout(timer);
      this.barriers.delete(token);
    }
  }

  private query<R extends pg.QueryResultRow>(
    client: pg.Client,
    text: string,
    values: unknown[] = [],
  ): Promise<pg.QueryResult<R>> {
    const result = this.queries.then(() => client.query<R>(text, values));
    this.queries = result.catch(() => undefined);
    return result;
  }

  private wake(): void {
    for (const barrier of this.barriers.values()) barrier.done();
  }

  /**
   * Acknowledges others' barriers, and ticks off the sessions (by the pid that sent the
   * acknowledgement) that acknowledged this process's.
   */
  private barrierMessage(client: pg.Client, message: pg.Notification): void {
    const [kind, token] = (message.payload ?? "").split(":");
    if (kind === "barrier" && token) {
      this.query(client, `SELECT pg_notify($1, $2)`, [BARRIER_CHANNEL, `ack:${token}`]).catch(
        (error: unknown) => this.drop(client, error),
      );
    } else if (kind === "ack" && token) {
      const barrier = this.barriers.get(token);
      if (!barrier) return;
      barrier.acknowledged.add(message.processId);
      barrier.waiting?.delete(message.processId);
      if (barrier.waiting?.size === 0) barrier.done();
    }
  }

  private async listen(client: pg.Client): Promise<void> {
    try {
      await client.connect();
      await client.query(`LISTEN ${STORE_CHANGED_CHANNEL}`);
      await client.query(`LISTEN ${BARRIER_CHANNEL}`);
      // A session whose client vanished without a word (a firewall dropping the flow) would be
      // waited for by every barrier until the server notices: make it notice within a minute.
      await client.query(
        "SET tcp_keepalives_idle = 30; SET tcp_keepalives_interval = 10; SET tcp_keepalives_count = 3",
      );
      // Named once listening: writers wait for the sessions bearing this name.
      await client.query(`SET application_name = '${LISTENER_NAME}'`);
    } catch (error) {
      this.drop(client, error);
      return;
    }
    if (this.client !== client) return;
    this.failures = 0;
    this.isListening = true;
    // A read that started while nothing was heard may hold what changed meanwhile: it must not
    // be kept now that memory is trusted again.
    for (const subscriber of this.subscribers) subscriber.everythingChanged();
    this.heartbeatTimer = setInterval(() => this.probe(client), this.heartbeatMs).unref();
    this.logger.info({ channel: STORE_CHANGED_CHANNEL }, "listening for store changes");
  }

  private probe(client: pg.Client): void {
    this.query(client, "SELECT 1").catch((error: unknown) => this.drop(client, error));
  }

  private notified(payload: string | undefined): void {
    if (payload !== undefined && /^\d{1,15}$/.test(payload)) {
      const storeId = Number(payload);
      for (const subscriber of this.subscribers) subscriber.storeChanged(storeId);
    } else {
      for (const subscriber of this.subscribers) subscriber.everythingChanged();
    }
  }

  /** Forgets a connection that failed or is no longer wanted, and plans the next attempt. */
  private drop(client: pg.Client, error?: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    clearInterval(this.heartbeatTimer);
    const wasListening = this.isListening;
    this.isListening = false;
    // What happened before the next LISTEN takes effect goes unheard: nothing held is current.
    if (wasListening) for (const subscriber of this.subscribers) subscriber.everythingChanged();
    // Nothing more will be heard on this connection: a write waiting for a barrier goes on.
    this.wake();
    this.closing = client.end();
    if (!this.running) return;
    const ceiling = Math.min(this.maxRetryDelayMs, this.minRetryDelayMs * 2 ** this.failures);
    // Jitter: the processes that lost the same database must not all come back at once.
    const delay = Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
    this.failures += 1;
    this.logger.warn(
      { err: error, retryInMs: delay, failures: this.failures },
      "store change notifications unavailable: storefront caches read the database until they resume",
    );
    this.retryTimer = setTimeout(() => this.connect(), delay).unref();
  }
}
