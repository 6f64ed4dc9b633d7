import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import pg from "pg";
import { pino } from "pino";
import { createApp } from "../src/app.js";
import { loadConfig } from "../src/config.js";
import { STORE_CHANGED_CHANNEL } from "../src/db/store-changes.js";
import { run, type Runner } from "graphile-worker";
import { workerLogger } from "../src/jobs/queue.js";
import { taskList } from "../src/jobs/tasks.js";
import { openRuntime, type Services } from "../src/runtime.js";
import { setUpProgramme } from "./scenarios.js";
import { generateStore, GROWTH_STORE, scaledSize } from "./store-generator.js";
import { benchDatabase } from "./support.js";

/**
 * The SQL of the hot paths, and whether each statement stays within one store: what a
 * distributed PostgreSQL sharded by store (Citus, distribution column `store_id`) needs for it
 * to run on one shard. test/hot-queries.test.ts runs the paths and fails on a statement that
 * reads or writes a store's rows without naming the store; docs/operators.md (Scaling) quotes
 * the plans this script prints.
 *
 * `node --conditions=@loyalty/source --import tsx bench/hot-queries.ts` (DATABASE_URL's server
 * in a fresh database, else an embedded PostgreSQL) generates a store of
 * HOT_QUERIES_CUSTOMERS customers (20,000) with its history (bench/store-generator.ts), runs
 * the hot paths on it through the real API and its workers, captures every statement, then
 * prints EXPLAIN (ANALYZE, VERBOSE) of each, rolled back, with the scope of every table it
 * touches, and flags a generic plan (what the pool's prepared statement may keep) that finds a
 * value's rows by reading a whole table or index. HOT_QUERIES_KEEP=1 keeps the database.
 */

/** A statement as the service sent it, with the values of its first sending. */
export interface CapturedStatement {
  text: string;
  values: unknown[];
  /** The hot paths it ran in (a worker's statements count in the path that was running). */
  paths: Set<string>;
  count: number;
}

/** Statements that are no store's business: transactions, probes, the LISTEN connection's. */
const CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SELECT 1\b|LISTEN|UNLISTEN|SET\s)/i;

export interface StatementCapture {
  /** Statements by their text (spaces collapsed), in the order first seen. */
  readonly statements: Map<string, CapturedStatement>;
  /** Attributes what runs from now on to `name`; undefined records nothing. */
  path(name: string | undefined): void;
  /** A client whose statements are never recorded (the capture's own look-ups). */
  exclude(client: pg.ClientBase): void;
  stop(): void;
}

/**
 * Records every statement any pg client of this process sends (the API's pool, the workers',
 * the listener), by wrapping `Client.prototype.query`: what PostgreSQL receives, not what the
 * code seems to say.
 */
export function captureStatements(): StatementCapture {
  const statements = new Map<string, CapturedStatement>();
  const excluded = new WeakSet<object>();
  let current: string | undefined;
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  prototype.query = function (this: object, ...args: unknown[]) {
    const [config, values] = args;
    if (current !== undefined && !excluded.has(this)) {
      const text = typeof config === "string" ? config : (config as { text?: string } | null)?.text;
      if (text && !CONTROL.test(text)) {
        const key = text.replace(/\s+/g, " ").trim();
        const seen = statements.get(key);
        if (seen) {
          seen.count += 1;
          seen.paths.add(current);
        } else {
          const bound: unknown[] = Array.isArray(values)
            ? (values as unknown[])
            : ((config as { values?: unknown[] }).values ?? []);
          statements.set(key, { text, values: [...bound], paths: new Set([current]), count: 1 });
        }
      }
    }
    return original.apply(this, args);
  };
  return {
    statements,
    path: (name) => {
      current = name;
    },
    exclude: (client) => excluded.add(client),
    stop: () => {
      prototype.query = original;
    },
  };
}

/**
 * What the hot paths need of a store: its credentials as its server and its storefront send
 * them, a reward one point buys, and customer numbers of its own.
 */
export interface HotTarget {
  baseUrl: string;
  services: Services;
  store: {
    id: number;
    domain: string;
    /** `Authorization` of the store's server. */
    authorization: string;
    /** The storefront's HMAC of a customer's external id. */
    hash(externalId: number): string;
  };
  /** A reward of the store that costs at most CLAIMER_POINTS. */
  rewardId: number;
  /** An external id no customer of the store has yet: registrations create them. */
  newCustomer: number;
  /** An order number the store has not used. */
  orderNumber: number;
  /** Looks up the database without being captured. */
  db: pg.ClientBase;
}

const REVISION = { revision: "2026-08-26" };
/** What the claimer is given before claiming (more than any reward of the targets costs). */
export const CLAIMER_POINTS = 100_000;

/**
 * A local HTTP server standing for the store's webhook endpoint (`/webhook`: 200) and for a
 * platform that is down (anything else: 503), so that a claim is released.
 */
export async function startLocalEndpoints(): Promise<{
  webhookUrl: string;
  platformUrl: string;
  close(): Promise<void>;
}> {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(req.url === "/webhook" ? 200 : 503).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    webhookUrl: `${base}/webhook`,
    platformUrl: `${base}/platform`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function send(
  target: HotTarget,
  method: "GET" | "POST",
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; expect?: number[] } = {},
): Promise<unknown> {
  const response = await fetch(`${target.baseUrl}${path}`, {
    method,
    headers: {
      ...REVISION,
      ...(options.body !== undefined && { "content-type": "application/json" }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  const expected = options.expect ?? [200, 201];
  if (!expected.includes(response.status)) {
    throw new Error(`${method} ${path}: ${response.status} ${text}`);
  }
  return text ? (JSON.parse(text) as unknown) : undefined;
}

/**
 * The job workers with every task but no schedule: the minute's schedules (claims settled,
 * points released or expired, clubs reviewed) sweep every store by design, and would be
 * counted in whatever path ran when the minute turned.
 */
export function startJobs(databaseUrl: string, services: Services): Promise<Runner> {
  return run({
    connectionString: databaseUrl,
    taskList: taskList(services),
    concurrency: 4,
    noHandleSignals: true,
    pollInterval: 2_000,
    logger: workerLogger(pino({ level: "silent" })),
  });
}

/** Polls the database (uncaptured) until `sql` returns a row whose `done` is true. */
async function until(target: HotTarget, sql: string, values: unknown[]): Promise<void> {
  const deadline = performance.now() + 20_000;
  for (;;) {
    const { rows } = await target.db.query<{ done: boolean }>(sql, values);
    if (rows[0]?.done) return;
    if (performance.now() > deadline) throw new Error(`not done within 20 s: ${sql}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Runs each hot path once on `target`, each attributed to its name in `capture`: the
 * storefront reads from a cold cache, a registration with an Idempotency-Key and its replay,
 * its crediting by the worker and its webhook delivery, a refund and its processing, a claim
 * (reserve, confirm), a claim the platform fails (release), the customer's history and codes.
 */
export async function runHotPaths(
  target: HotTarget,
  capture: StatementCapture,
  endpoints: { webhookUrl: string; platformUrl: string },
): Promise<void> {
  const { store } = target;
  const domain = encodeURIComponent(store.domain);
  const customer = target.newCustomer;
  const customerQuery = `domain=${domain}&hash=${store.hash(customer)}`;
  const basic = { authorization: store.authorization };

  await target.services.webhooks.create(
    store.id,
    { url: endpoints.webhookUrl, events: [] },
    { allowPrivateUrls: true },
  );

  // A bare notification: every process forgets every store, keys included.
  await target.db.query(`NOTIFY ${STORE_CHANGED_CHANNEL}`);
  await target.services.changes.barrier();
  capture.path("storefront reads (cache loads)");
  await send(
    target,
    "GET",
    `/point/product-points/calculate?price=19.9&product=100&domain=${domain}`,
  );
  await send(
    target,
    "GET",
    `/point/product-points/calculate-many?items=100:19.9,7:5:10&domain=${domain}`,
  );
  await send(target, "GET", `/reward/list?domain=${domain}`);
  for (const widget of ["cart", "product-points", "program-presentation", "launcher"]) {
    await send(target, "GET", `/store/widget/${widget}?domain=${domain}`);
  }

  const order = {
    externalId: target.orderNumber,
    externalReference: `#${target.orderNumber}`,
    customer: { externalId: customer, email: `hot-${customer}@bench.example` },
    currency: "EUR",
    lines: [
      { lineId: 1, productId: 100, categoryIds: [10], quantity: 2, unitPrice: 20, totalPaid: 40 },
    ],
  };
  const idempotency = { ...basic, "idempotency-key": `hot-${target.orderNumber}` };
  capture.path("registration (Idempotency-Key)");
  await send(target, "POST", "/api/order/register", { body: order, headers: idempotency });
  await send(target, "POST", "/api/order/register", { body: order, headers: idempotency });
  capture.path("order crediting (credit-store-orders), webhooks");
  await until(
    target,
    `SELECT bool_and(status = 'processed') AS done FROM orders
     WHERE store_id = $1 AND external_id = $2`,
    [store.id, String(target.orderNumber)],
  );
  await until(
    target,
    `SELECT count(*) > 0 AND bool_and(d.status = 'delivered') AS done
     FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id WHERE e.store_id = $1`,
    [store.id],
  );

  capture.path("refund (credit-store-orders)");
  await send(target, "POST", "/api/order/refund", {
    body: { externalId: target.orderNumber, status: "partially_refunded", refundedAmount: 10 },
    headers: basic,
  });
  await until(
    target,
    `SELECT bool_and(processing_status = 'processed') AS done FROM refunds
     WHERE store_id = $1 AND order_external_id = $2`,
    [store.id, String(target.orderNumber)],
  );

  // Enough points for any claim: an adjustment, as the back-office gives them (not measured).
  capture.path(undefined);
  await target.services.customersAdmin.adjust(store.id, customer, {
    points: CLAIMER_POINTS,
    reason: "hot paths",
  });
  capture.path("claim (reserve, confirm)");
  await send(target, "POST", `/reward/claim/${customer}?${customerQuery}`, {
    body: { rewardId: target.rewardId },
  });

  capture.path(undefined);
  await target.services.platforms.connect(
    store.id,
    {
      platform: "woocommerce",
      url: endpoints.platformUrl,
      consumerKey: "ck_1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d",
      consumerSecret: "cs_8f1d2c3b4a5968778695a4b3c2d1e0f9a8b7c6d5",
    },
    { allowPrivateUrls: true },
  );
  capture.path("claim the platform fails (release)");
  await send(target, "POST", `/reward/claim/${customer}?${customerQuery}`, {
    body: { rewardId: target.rewardId },
    expect: [502],
  });
  capture.path(undefined);
  await target.services.platforms.connect(store.id, { platform: "sandbox" });

  capture.path("customer history");
  await send(target, "GET", `/point/user-history/${customer}?${customerQuery}`);
  capture.path("reward codes");
  await send(target, "GET", `/reward/codes/${customer}?${customerQuery}`);
  capture.path(undefined);
}

/** How a statement reaches one table's rows. */
export type Scope =
  /** Filtered by its store: `store_id = <value>` (or the store's own key, for `stores`). */
  | "store"
  /** Its `store_id` equals another relation's column: the store comes from there. */
  | "joined"
  /** By a key only (its id, or a foreign key of a row found otherwise): no store named. */
  | "key"
  /** Rows written, each carrying its store_id. */
  | "insert"
  /** Rows written to a table that has no store_id. */
  | "insert without store_id"
  /** Nothing narrows it: every store's rows are read. */
  | "unscoped";

export interface TableAccess {
  table: string;
  alias: string;
  node: string;
  scope: Scope;
  /** The conditions that decided it. */
  conditions: string[];
  /** For "joined": the relations (aliases) whose store column equals this one's. */
  joinedTo: string[];
}

/** Tables whose rows belong to a store, and the columns that name one. */
export interface StoreKeyedSchema {
  /** Each table of a store's data with a column naming the store: the column(s), as a regex. */
  storeColumns: Map<string, string>;
  /** Tables of a store's data without one (they hang off a parent row by its id). */
  withoutStoreId: Set<string>;
}

/**
 * The store's data: every public table with a store_id column (but the back-office's users,
 * who may be the whole service's), and those hanging off such a table's rows through a
 * foreign key without a store_id of their own. `stores` is the store itself, found by its id,
 * domain or reference; an Idempotency-Key is kept under its sender's scope (`store <id>`,
 * `customer <store id> <external id>`).
 */
export async function storeKeyedSchema(db: pg.ClientBase): Promise<StoreKeyedSchema> {
  const { rows } = await db.query<{ table: string }>(
    `SELECT c.relname AS table
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'store_id' AND NOT a.attisdropped
     WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> 'admin_users'`,
  );
  const storeColumns = new Map<string, string>([
    ["stores", "id|domain|reference"],
    ["idempotency_keys", "scope"],
    ...rows.map((row): [string, string] => [row.table, "store_id"]),
  ]);
  const { rows: children } = await db.query<{ table: string }>(
    `SELECT DISTINCT child.relname AS table
     FROM pg_constraint fk
     JOIN pg_class child ON child.oid = fk.conrelid
     JOIN pg_class parent ON parent.oid = fk.confrelid
     JOIN pg_namespace n ON n.oid = child.relnamespace
     WHERE fk.contype = 'f' AND n.nspname = 'public' AND parent.relname = ANY ($1::text[])
       AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = child.oid
                       AND a.attname = 'store_id' AND NOT a.attisdropped)
       AND child.relname <> 'admin_users'`,
    [[...storeColumns.keys()]],
  );
  return { storeColumns, withoutStoreId: new Set(children.map((row) => row.table)) };
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  Alias?: string;
  Operation?: string;
  Plans?: PlanNode[];
  [key: string]: unknown;
}

/** Unique keys that find their store: a credential's public id (Basic authentication). */
const ENTRY_KEYS: Record<string, string> = { api_keys: "prefix" };

const OWN_CONDITIONS = ["Index Cond", "Recheck Cond", "Filter", "TID Cond"];
const JOIN_CONDITIONS = ["Hash Cond", "Merge Cond", "Join Filter"];

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A plan's field as text: a condition, an index's name, a list of indexes. */
function field(node: PlanNode, key: string): string {
  const value = node[key];
  if (Array.isArray(value)) return value.filter((item) => typeof item === "string").join(", ");
  return typeof value === "string" || typeof value === "number" ? String(value) : "";
}

/** A table holding a store's data: with its own store column, or reached through one. */
function isStoreTable(relation: string | undefined, schema: StoreKeyedSchema): relation is string {
  return (
    relation !== undefined &&
    (schema.storeColumns.has(relation) || schema.withoutStoreId.has(relation))
  );
}

/** The top-level `a = b` comparisons of a condition (split at AND), without parentheses. */
function comparisons(condition: string): string[] {
  if (!condition) return [];
  return condition
    .split(/\s+AND\s+/)
    .map((part) => part.replace(/^\(+/, "").replace(/\)+$/, "").trim());
}

/**
 * Every access of a statement's plan (EXPLAIN (VERBOSE, FORMAT JSON)) to a store's table, and
 * how the plan narrows it: by the conditions of its scan and of the joins above it. A scan's
 * own conditions may name its columns bare; elsewhere they are qualified by its alias.
 */
export function tableAccesses(plan: PlanNode, schema: StoreKeyedSchema): TableAccess[] {
  const accesses: TableAccess[] = [];
  const visit = (node: PlanNode, joins: string[]) => {
    const relation = node["Relation Name"];
    const keyed = isStoreTable(relation, schema);
    if (keyed && node["Node Type"] === "ModifyTable") {
      if (node.Operation === "Insert") {
        accesses.push({
          table: relation,
          alias: node.Alias ?? relation,
          node: "Insert",
          scope: schema.withoutStoreId.has(relation) ? "insert without store_id" : "insert",
          conditions: [],
          joinedTo: [],
        });
      }
    } else if (keyed) {
      const alias = node.Alias ?? relation;
      const qualified = `${escaped(alias)}\\.`;
      const own = OWN_CONDITIONS.flatMap((key) => comparisons(field(node, key)));
      const above = joins.filter((condition) => condition.includes(`${alias}.`));
      // The comparisons with one of the relation's columns on a side of `=` (or `= ANY (`),
      // and what stands on the other side.
      const naming = (names: string, conditions: string[], bare: boolean) => {
        const column = new RegExp(
          `^\\(?${bare ? `(?:${qualified})?` : qualified}(?:${names})\\)?$`,
        );
        return conditions.flatMap((condition) => {
          const compared = /^(.+?)\s*=\s*(?:ANY\s*\()?(.+)$/.exec(condition);
          if (!compared) return [];
          const [, left = "", right = ""] = compared;
          const other = column.test(left) ? right : column.test(right) ? left : undefined;
          return other === undefined ? [] : [{ condition, other }];
        });
      };
      const storeColumns = schema.storeColumns.get(relation);
      const byStore = storeColumns
        ? [...naming(storeColumns, own, true), ...naming(storeColumns, above, false)]
        : [];
      // Compared with another relation's column: the store comes from there.
      const joinedTo = byStore.flatMap(({ other }) => {
        const from = /^\(?(\w+)\.\w+\)?$/.exec(other)?.[1];
        return from !== undefined && from !== alias ? [from] : [];
      });
      const keys = `id|\\w+_id${ENTRY_KEYS[relation] ? `|${ENTRY_KEYS[relation]}` : ""}`;
      const byKey = [...naming(keys, own, true), ...naming(keys, above, false)];
      accesses.push({
        table: relation,
        alias,
        node: node["Node Type"],
        scope:
          byStore.length > joinedTo.length
            ? "store"
            : joinedTo.length > 0
              ? "joined"
              : byKey.length > 0
                ? "key"
                : "unscoped",
        conditions:
          byStore.length + byKey.length > 0
            ? (byStore.length > 0 ? byStore : byKey).map(({ condition }) => condition)
            : own,
        joinedTo,
      });
    }
    const here = JOIN_CONDITIONS.flatMap((key) => comparisons(field(node, key)));
    for (const child of node.Plans ?? []) visit(child, [...joins, ...here]);
  };
  visit(plan, []);
  return accesses;
}

/**
 * Whether a database sharded by store could send the statement to one shard: every access to
 * a distributed table (every table of a store's data but `stores`, which is the same on every
 * node) names one store by a value, or is joined on the store to one that does (Citus infers
 * `a.store_id = 5` from `a.store_id = b.store_id AND b.store_id = 5`), or writes rows that
 * each carry their store. A store found through `stores`, or read from an array of inputs, is
 * not a value the router sees; a key alone routes nowhere.
 */
export function routesToOneShard(accesses: TableAccess[]): boolean {
  const distributed = accesses.filter((access) => access.table !== "stores");
  const routed = new Set(
    distributed
      .filter((access) => access.scope === "store" || access.scope === "insert")
      .map((access) => access.alias),
  );
  for (let grew = true; grew;) {
    grew = false;
    for (const access of distributed) {
      if (!routed.has(access.alias) && access.joinedTo.some((other) => routed.has(other))) {
        routed.add(access.alias);
        grew = true;
      }
    }
  }
  return distributed.every((access) => routed.has(access.alias));
}

export interface ExplainedStatement {
  statement: CapturedStatement;
  /** The plan's root; undefined for a statement EXPLAIN cannot take (error says why). */
  plan?: PlanNode;
  error?: string;
  accesses: TableAccess[];
  /** See routesToOneShard. */
  oneShard: boolean;
  /** Some table is read with nothing narrowing it to a store. */
  unscoped: boolean;
}

/**
 * EXPLAINs the statement with its captured values (ANALYZE runs it, in a transaction rolled
 * back) and judges the scope of each store table it touches.
 *
 * `generic`: the plan the service's pool settles on for it. The pool prepares every statement
 * with parameters under a name (db/pool.ts), and PostgreSQL then keeps a generic plan, made
 * without the values, once it looks no costlier than those made with them; a plan that reads
 * a whole table to find one value's rows is the same plan whatever the value. Planned with
 * sequential scans priced out (enable_seqscan off), so that a small table of a test's
 * database, cheaper to read whole, does not hide whether an index narrows it: a sequential
 * scan left in such a plan is one no index could replace.
 */
export async function explainStatement(
  db: pg.ClientBase,
  statement: CapturedStatement,
  schema: StoreKeyedSchema,
  { analyze = false, generic = false }: { analyze?: boolean; generic?: boolean } = {},
): Promise<ExplainedStatement> {
  const options = analyze ? "ANALYZE, VERBOSE, BUFFERS, FORMAT JSON" : "VERBOSE, FORMAT JSON";
  let prepared = false;
  await db.query("BEGIN");
  try {
    await db.query("SET LOCAL lock_timeout = '2s'");
    let explain = `EXPLAIN (${options}) ${statement.text}`;
    if (generic) {
      await db.query("SET LOCAL plan_cache_mode = force_generic_plan");
      await db.query("SET LOCAL enable_seqscan = off");
      // A prepared statement outlives the transaction: deallocated in finally.
      await db.query(`PREPARE hot_generic AS ${statement.text}`);
      prepared = true;
      // EXPLAIN takes no parameters: the values as literals, each cast by EXECUTE to its type.
      const values = statement.values.map(literal).join(", ");
      explain = `EXPLAIN (${options}) EXECUTE hot_generic${values ? `(${values})` : ""}`;
    }
    const { rows } = await db.query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
      explain,
      generic ? [] : statement.values,
    );
    const plan = rows[0]?.["QUERY PLAN"][0]?.Plan as PlanNode;
    const accesses = tableAccesses(plan, schema);
    return {
      statement,
      plan,
      accesses,
      oneShard: routesToOneShard(accesses),
      unscoped: accesses.some((access) => access.scope === "unscoped"),
    };
  } catch (error) {
    return {
      statement,
      error: (error as Error).message,
      accesses: [],
      oneShard: false,
      unscoped: false,
    };
  } finally {
    await db.query("ROLLBACK");
    if (prepared) await db.query("DEALLOCATE hot_generic");
  }
}

/** node-postgres's own conversion of a value to what it sends (exported, but not typed). */
const { prepareValue } = (
  pg as unknown as { utils: { prepareValue: (value: unknown) => string | Buffer | null } }
).utils;

/** A value as node-postgres would send it, as an SQL literal of no type yet. */
function literal(value: unknown): string {
  const prepared = prepareValue(value);
  if (prepared === null) return "NULL";
  if (Buffer.isBuffer(prepared)) return pg.escapeLiteral(`\\x${prepared.toString("hex")}`);
  return pg.escapeLiteral(prepared);
}

/** A column, perhaps cast: `status`, `o.status`, `(o.status)::text`. */
const COLUMN = /^\(*(?:\w+\.)?\w+\)*(?:::[\w ]+)?$/;
/**
 * A value that is not a column: a parameter, a constant or a subplan's result, perhaps cast
 * or in `ANY (...)`: `$1`, `($2)::text`, `'x'::text`, `42`, `(InitPlan 1).col1`, `$0`.
 */
const VALUE =
  /^(?:ANY\s*\(\s*)?\(*(?:\$\d+|'(?:[^']|'')*'|-?\d+(?:\.\d+)?|\(InitPlan \d+\)\.col\d+)\)*(?:::[\w ]+(?:\[\])?)?\)*$/;

/** Whether a condition finds rows by a value: some `column = value` among its comparisons. */
function comparesWithValue(condition: string): boolean {
  return comparisons(condition).some((comparison) => {
    const compared = /^(.+?)\s*=\s*(.+)$/.exec(comparison);
    if (!compared) return false;
    const [, left = "", right = ""] = compared;
    return (COLUMN.test(left) && VALUE.test(right)) || (VALUE.test(left) && COLUMN.test(right));
  });
}

/**
 * The scans of a plan that find rows by a value (a filter `column = $1`, `= ANY ($1)`, a
 * constant or a subplan's result, cast or not) yet
 * read a table of a store's data whole: a sequential scan, or an index walked from end to end
 * (no index condition: the index only gave an order). A whole table grows with every store; a
 * value's rows are a few. A whole read feeding a join (no value of its own) is the join's
 * choice on a small table, and not judged here.
 */
export function wholeTableReads(plan: PlanNode, schema: StoreKeyedSchema): string[] {
  const reads: string[] = [];
  const visit = (node: PlanNode) => {
    const relation = node["Relation Name"];
    const type = node["Node Type"];
    const filter = field(node, "Filter");
    if (
      isStoreTable(relation, schema) &&
      comparesWithValue(filter) &&
      (type === "Seq Scan" ||
        ((type === "Index Scan" || type === "Index Only Scan") && !field(node, "Index Cond")))
    ) {
      const index = node["Index Name"] ? ` using ${field(node, "Index Name")}` : "";
      reads.push(`${type}${index} on ${relation} ${node.Alias ?? ""} (Filter: ${filter})`);
    }
    for (const child of node.Plans ?? []) visit(child);
  };
  visit(plan);
  return reads;
}

/** The plan as EXPLAIN's text would show it, trimmed to what decides the scope. */
export function planText(node: PlanNode, depth = 0): string[] {
  const pad = "  ".repeat(depth);
  const relation = node["Relation Name"] ? ` on ${node["Relation Name"]} ${node.Alias ?? ""}` : "";
  const index = node["Index Name"] ? ` using ${field(node, "Index Name")}` : "";
  const operation =
    node.Operation && node["Node Type"] === "ModifyTable" ? ` ${node.Operation}` : "";
  const actual =
    node["Actual Total Time"] !== undefined
      ? ` (actual ${Number(node["Actual Total Time"]).toFixed(3)} ms, ${field(node, "Actual Rows")} rows)`
      : "";
  const lines = [
    `${pad}${operation ? operation.trim() : node["Node Type"]}${index}${relation}${actual}`,
  ];
  for (const key of [...OWN_CONDITIONS, ...JOIN_CONDITIONS, "Conflict Arbiter Indexes"]) {
    const value = field(node, key);
    if (value) lines.push(`${pad}    ${key}: ${value}`);
  }
  for (const child of node.Plans ?? []) lines.push(...planText(child, depth + 1));
  return lines;
}

/** One line per access: `table alias: scope (conditions)`. */
export function accessesText(accesses: TableAccess[]): string[] {
  return accesses.map(
    (access) =>
      `${access.table} ${access.alias} (${access.node}): ${access.scope}${
        access.conditions.length > 0 ? `  ${access.conditions.join("  ")}` : ""
      }`,
  );
}

async function main(): Promise<void> {
  const customers = Number(process.env["HOT_QUERIES_CUSTOMERS"] ?? 20_000);
  const size = scaledSize(GROWTH_STORE, customers / GROWTH_STORE.customers);
  const database = await benchDatabase();
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const config = loadConfig({
    DATABASE_URL: database.url,
    LOYALTY_MASTER_KEY: "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
    ALLOW_PRIVATE_URLS: "true",
    LOG_LEVEL: "error",
    RATE_LIMIT_STOREFRONT: "0",
    RATE_LIMIT_CUSTOMER: "0",
    RATE_LIMIT_API_KEY: "0",
  });
  // The claim the platform fails is a 502 on purpose: nothing to log.
  const runtime = await openRuntime(config, pino({ level: "fatal" }), { migrate: false });
  const endpoints = await startLocalEndpoints();
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  const capture = captureStatements();
  capture.exclude(db);
  try {
    const { context, storeChanges } = runtime;
    const { pool, services } = context;
    // Another store first, so that the measured one is not alone in its tables.
    const neighbour = await setUpProgramme(pool, services, "https://neighbour.bench.example");
    await generateStore(pool, neighbour.id, scaledSize(size, 0.05));
    const store = await setUpProgramme(pool, services, "https://hot.bench.example");
    const generated = await generateStore(pool, store.id, size, (line) => out(line));
    out(
      `store ${store.id}: ${JSON.stringify(generated.rows)} in ${generated.seconds.toFixed(0)} s`,
    );
    const workers = await startJobs(database.url, services);
    await storeChanges.start();
    const app = createApp(context);
    const server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
    });
    try {
      await runHotPaths(
        {
          baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          services,
          store: {
            id: store.id,
            domain: store.domain,
            authorization: store.authorization,
            hash: (externalId) => store.hash(externalId),
          },
          rewardId: store.claimRewardId,
          newCustomer: size.customers + 1,
          orderNumber: 900_000_001,
          db,
        },
        capture,
        endpoints,
      );
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await workers.stop();
    }
    capture.stop();
    await db.query("ANALYZE");
    const schema = await storeKeyedSchema(db);
    for (const statement of capture.statements.values()) {
      // Run again, a statement may break a unique index its first run filled: planned only.
      const analyzed = await explainStatement(db, statement, schema, { analyze: true });
      const explained = analyzed.error ? await explainStatement(db, statement, schema) : analyzed;
      if (explained.accesses.length === 0 && !explained.error) continue;
      out("");
      out(`-- ${[...statement.paths].join(", ")} (${statement.count}x)`);
      if (analyzed.error) out(`-- not run again (${analyzed.error}): planned only`);
      out(statement.text.replace(/^\s*\n/, "").replace(/\s+$/, ""));
      out(
        `-- ${explained.oneShard ? "one shard" : explained.unscoped ? "UNSCOPED" : "every shard"}:`,
      );
      for (const line of accessesText(explained.accesses)) out(`--   ${line}`);
      for (const line of explained.plan ? planText(explained.plan) : [explained.error ?? ""]) {
        out(`   ${line}`);
      }
      // The plan the pool's prepared statement may keep, on this store's statistics.
      const generic = await explainStatement(db, statement, schema, { generic: true });
      const reads = generic.plan ? wholeTableReads(generic.plan, schema) : [];
      if (generic.error) out(`-- generic plan: ${generic.error}`);
      for (const read of reads) out(`-- GENERIC PLAN READS WHOLE: ${read}`);
    }
  } finally {
    capture.stop();
    await db.end();
    await endpoints.close();
    await runtime.close();
    if (process.env["HOT_QUERIES_KEEP"] === "1" && !database.embedded) {
      out(`kept ${database.url} (DROP DATABASE it when done)`);
    } else {
      await database.drop();
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
