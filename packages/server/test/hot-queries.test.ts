import { writeFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  accessesText,
  captureStatements,
  explainStatement,
  runHotPaths,
  startJobs,
  startLocalEndpoints,
  storeKeyedSchema,
  wholeTableReads,
  type ExplainedStatement,
} from "../bench/hot-queries.js";
import { startTestApp, type TestApp } from "./support/app.js";
import { addReward, addRule, hashFor, storeWithKey } from "./support/fixtures.js";

/**
 * Every statement the hot paths send (registration and its crediting, refunds, claims, the
 * customer's history and codes, the storefront's cache loads, Idempotency-Key, webhooks),
 * captured as PostgreSQL receives it and judged by its plan: each table of a store's data it
 * touches must be narrowed to one store (by store_id, a join on it, or a key of a row found by
 * store), so that no request reads another store's rows, and a database sharded by store can
 * route it (docs/operators.md, Scaling).
 */

const PATHS = [
  "storefront reads (cache loads)",
  "registration (Idempotency-Key)",
  "order crediting (credit-store-orders), webhooks",
  "refund (credit-store-orders)",
  "claim (reserve, confirm)",
  "claim the platform fails (release)",
  "customer history",
  "reward codes",
];

let app: TestApp;
let db: pg.Client;
let explained: ExplainedStatement[];
let schema: Awaited<ReturnType<typeof storeKeyedSchema>>;
/** The same statements, as the generic plans the pool's prepared statements may keep. */
let generic: { entry: ExplainedStatement; reads: string[] }[];

beforeAll(async () => {
  app = await startTestApp({ env: { ALLOW_PRIVATE_URLS: "true" } });
  const { pool } = app.context;
  // A neighbour with the same programme: a statement blind to the store would reach its rows.
  const stores = [];
  for (const domain of ["https://neighbour-hot.example", "https://hot.example"]) {
    const created = await storeWithKey(app, domain);
    await addRule(pool, created.store.id, { kind: "default", rate: 1 });
    const reward = await addReward(pool, created.store.id, {
      triggerValue: 100,
      kind: "free_shipping",
    });
    stores.push({ ...created, rewardId: reward.rewardId });
  }
  const shop = stores[1] as (typeof stores)[number];
  db = new pg.Client({ connectionString: app.database.url });
  await db.connect();
  const endpoints = await startLocalEndpoints();
  const jobs = await startJobs(app.database.url, app.context.services);
  const capture = captureStatements();
  capture.exclude(db);
  try {
    await runHotPaths(
      {
        baseUrl: app.baseUrl,
        services: app.context.services,
        store: {
          id: shop.store.id,
          domain: shop.store.domain,
          authorization: shop.authorization,
          hash: (externalId) => hashFor(shop.store.reference, shop.key, externalId),
        },
        rewardId: shop.rewardId,
        newCustomer: 42,
        orderNumber: 1001,
        db,
      },
      capture,
      endpoints,
    );
  } finally {
    capture.stop();
    await jobs.stop();
    await endpoints.close();
  }
  schema = await storeKeyedSchema(db);
  explained = [];
  for (const statement of capture.statements.values()) {
    explained.push(await explainStatement(db, statement, schema));
  }
  generic = [];
  for (const statement of capture.statements.values()) {
    const entry = await explainStatement(db, statement, schema, { generic: true });
    generic.push({ entry, reads: entry.plan ? wholeTableReads(entry.plan, schema) : [] });
  }
  // HOT_QUERIES_REPORT=<file>: every statement with the scope of each table it touches.
  const file = process.env["HOT_QUERIES_REPORT"];
  if (file) writeFileSync(file, `${report(explained.filter((e) => e.accesses.length > 0))}\n`);
}, 60_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
});

function report(statements: ExplainedStatement[]): string {
  return statements
    .map((entry) =>
      [
        `[${[...entry.statement.paths].join(", ")}] ${entry.oneShard ? "one shard" : "every shard"}`,
        entry.statement.text.trim(),
        ...(entry.error ? [`EXPLAIN failed: ${entry.error}`] : accessesText(entry.accesses)),
      ].join("\n"),
    )
    .join("\n\n");
}

describe("the hot paths' statements", () => {
  it("are captured for every path", () => {
    const touching = explained.filter((entry) => entry.accesses.length > 0);
    for (const path of PATHS) {
      expect(
        touching.some((entry) => entry.statement.paths.has(path)),
        `no statement of a store's data captured for ${path}`,
      ).toBe(true);
    }
  });

  it("can all be planned", () => {
    expect(report(explained.filter((entry) => entry.error !== undefined))).toBe("");
  });

  it("narrow every table of a store's data to one store", () => {
    expect(report(explained.filter((entry) => entry.unscoped))).toBe("");
  });

  it("reach a store's rows through an index under the plan their prepared statement keeps", () => {
    // A value's rows read by walking a whole table or index: no index serves the statement's
    // filter (sequential scans are priced out here, the tables are small). A refund's lot was
    // found that way on the benchmark's statistics (test/refund-lot.test.ts).
    expect(report(generic.filter(({ entry }) => entry.error).map(({ entry }) => entry))).toBe("");
    expect(
      generic
        .filter(({ reads }) => reads.length > 0)
        .map(({ entry, reads }) =>
          [
            `[${[...entry.statement.paths].join(", ")}]`,
            entry.statement.text.trim(),
            ...reads,
          ].join("\n"),
        )
        .join("\n\n"),
    ).toBe("");
  });

  it("count as found by a value a filter in any shape EXPLAIN prints it", () => {
    const scan = (filter: string, index?: string) => ({
      "Node Type": index ? "Index Scan" : "Seq Scan",
      "Relation Name": "orders",
      Alias: "o",
      Filter: filter,
      ...(index ? { "Index Cond": index } : {}),
    });
    const byValue = [
      "(o.store_id = $1)",
      "((o.status)::text = 'pending'::text)",
      "((o.order_id)::text = ($2)::text)",
      "(o.store_id = ANY ($1))",
      "((o.store_id = $1) AND (o.created_at < now()))",
      "(o.customer_id = (InitPlan 1).col1)",
      "(o.points = 42)",
    ];
    for (const filter of byValue) {
      expect(wholeTableReads(scan(filter), schema), filter).toHaveLength(1);
    }
    // Compared with another relation (a join's choice) or not by equality: not judged here.
    for (const filter of ["(o.customer_id = c.id)", "(o.points > 0)", "(o.created_at < now())"]) {
      expect(wholeTableReads(scan(filter), schema), filter).toEqual([]);
    }
    // Narrowed by an index condition: found through the index.
    const narrowed = scan("((o.status)::text = 'pending'::text)", "(o.store_id = $1)");
    expect(wholeTableReads(narrowed, schema)).toEqual([]);
  });
});
