import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { pino } from "pino";
import { loadConfig } from "../src/config.js";
import { openRuntime } from "../src/runtime.js";
import {
  addClaimers,
  backlogCustomer,
  creditChecks,
  drain,
  OrderNumbers,
  pendingOrders,
  registrationRequests,
  setUpProgramme,
} from "./scenarios.js";
import {
  benchDatabase,
  checkpoint,
  percentile,
  SERVER_READY,
  serverEnv,
  start,
  stop,
} from "./support.js";

/**
 * `pnpm bench:worker-variants <name>[=<change>] ...`: what a change to order processing buys,
 * read closer than `pnpm bench`'s worker figure can (two runs of it differ by more than most
 * changes do: each registers its own backlog, on a database whose files are new).
 *
 * One backlog of orders is registered once (as `pnpm bench` registers it: an API process with
 * its workers apart), into a database kept as a template. Each drain runs one worker process
 * (`loyalty worker`, the build in dist/) on a fresh copy of that template, timed from its start
 * banner to an empty queue, as `pnpm bench` times it. The variants take turns, in an order
 * reversed at every trial, after one drain not counted (the database server's first writes).
 *
 * A variant is a name, alone for the code and schema as they are, or with a change:
 * - `<name>=<file>.sql`: SQL run on the copy before its drain (a schema change to try);
 * - `<name>=<directory>`: a build of the server whose `cli.js worker` drains, run as dist/ is:
 *   a copy of dist/ made before a code change, next to it (`cp -r dist dist-before`: it finds
 *   this package's dependencies and migrations, and git, lint and the format check leave
 *   `dist-*` alone).
 * Paths are relative to this package's directory (where pnpm runs the script).
 *
 * Prints every drain and each variant's median orders per second, with its ratio to the first
 * variant's. Each drained copy must pass the benchmarks' credit checks (every order credited
 * once, every balance its ledger's sum, every earning lot its entry's): a variant that credits
 * wrongly fails the run rather than reading faster. BENCH_ORDERS (20,000) orders, BENCH_TRIALS (5) drains per variant. Uses
 * DATABASE_URL's server when set (fresh databases are created on it), else an embedded
 * PostgreSQL in a temporary directory.
 */

interface Variant {
  name: string;
  sql?: string;
  build?: string;
}

function parseVariant(argument: string): Variant {
  const split = argument.indexOf("=");
  const name = split < 0 ? argument : argument.slice(0, split);
  if (!/^[a-z0-9_-]+$/i.test(name)) throw new Error(`a variant's name is a word: ${argument}`);
  if (split < 0) return { name };
  const file = path.resolve(argument.slice(split + 1));
  if (file.endsWith(".sql")) {
    if (!existsSync(file)) throw new Error(`no ${file}`);
    return { name, sql: file };
  }
  if (!existsSync(path.join(file, "cli.js"))) throw new Error(`no cli.js in ${file}`);
  return { name, build: file };
}

const variants = process.argv.slice(2).map(parseVariant);
if (variants.length === 0) {
  throw new Error("usage: worker-variants.ts <name>[=<file.sql>|=<build directory>] ...");
}
if (new Set(variants.map((variant) => variant.name.toLowerCase())).size < variants.length) {
  throw new Error("two variants of one name");
}
const ORDERS = Number(process.env["BENCH_ORDERS"] ?? 20_000);
const TRIALS = Number(process.env["BENCH_TRIALS"] ?? 5);
const MASTER_KEY = randomBytes(32).toString("hex");

const database = await benchDatabase();
const template = new URL(database.url).pathname.slice(1);
const adminUrl = new URL(database.url);
adminUrl.pathname = "/postgres";
const admin = new pg.Client({ connectionString: adminUrl.toString() });

/** Registers the backlog in the template, through the API as checkouts do. */
async function registerBacklog(): Promise<{ storeId: number; orders: number }> {
  const config = loadConfig({ DATABASE_URL: database.url, LOYALTY_MASTER_KEY: MASTER_KEY });
  const runtime = await openRuntime(config, pino({ level: "error" }), {
    migrate: false,
    poolSize: 4,
  });
  try {
    const { pool, services } = runtime.context;
    const store = await setUpProgramme(pool, services, "https://bench.example");
    await addClaimers(pool, store);
    const { child: api, port } = await start(
      ["src/main.ts"],
      serverEnv(database.url, MASTER_KEY, "off"),
      SERVER_READY,
    );
    try {
      await autocannon({
        ...registrationRequests({ base: `http://127.0.0.1:${port}`, store }, new OrderNumbers(), {
          customer: backlogCustomer,
        }),
        connections: 50,
        amount: ORDERS,
      });
    } finally {
      await stop(api);
    }
    const orders = await pendingOrders(pool);
    // Every copy starts as the template left it: statistics and a checkpoint behind it.
    await pool.query("VACUUM ANALYZE");
    await checkpoint(pool, (message) => process.stdout.write(`${message}\n`));
    return { storeId: store.id, orders };
  } finally {
    await runtime.close();
  }
}

/** One drain of a copy of the backlog by a worker of the variant: orders per second. */
async function drainCopy(variant: Variant, trial: number, storeId: number): Promise<number> {
  const name = `${template}_${variant.name.toLowerCase().replace(/-/g, "_")}_${trial}`;
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  const url = new URL(database.url);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
  pool.on("error", () => {});
  try {
    if (variant.sql) {
      await pool.query(await readFile(variant.sql, "utf8"));
      await checkpoint(pool, () => {});
    }
    const orders = await pendingOrders(pool);
    const entry = variant.build
      ? [path.join(variant.build, "cli.js"), "worker"]
      : ["src/cli.ts", "worker"];
    const { child } = await start(
      entry,
      serverEnv(url.toString(), MASTER_KEY, "off"),
      /workers running/,
    );
    const began = Date.now();
    try {
      await drain(pool, 600_000);
    } finally {
      await stop(child);
    }
    const perSecond = orders / ((Date.now() - began) / 1000);
    const failed = Object.entries(await creditChecks(pool, storeId)).filter(([, n]) => n !== 0);
    if (failed.length > 0) {
      throw new Error(
        `${variant.name} credited wrongly: ${JSON.stringify(Object.fromEntries(failed))}`,
      );
    }
    return perSecond;
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

try {
  await admin.connect();
  const backlog = await registerBacklog();
  process.stdout.write(`backlog of ${backlog.orders} orders in ${template}\n`);
  const figures = new Map<string, number[]>(variants.map((variant) => [variant.name, []]));
  await drainCopy(variants[0] as Variant, 0, backlog.storeId);
  for (let trial = 1; trial <= TRIALS; trial++) {
    for (const variant of trial % 2 ? variants : [...variants].reverse()) {
      const perSecond = await drainCopy(variant, trial, backlog.storeId);
      figures.get(variant.name)?.push(perSecond);
      process.stdout.write(`trial ${trial} ${variant.name}: ${perSecond.toFixed(0)} orders/s\n`);
    }
  }
  const medians = variants.map((variant) => {
    const sorted = [...(figures.get(variant.name) ?? [])].sort((a, b) => a - b);
    return { variant, sorted, median: percentile(sorted, 50) };
  });
  const first = medians[0]?.median ?? NaN;
  for (const { variant, sorted, median } of medians) {
    process.stdout.write(
      `${variant.name}: median ${median.toFixed(0)} orders/s (${(median / first).toFixed(2)}x ${variants[0]?.name}), ` +
        `drains ${sorted.map((value) => value.toFixed(0)).join(", ")}\n`,
    );
  }
} finally {
  await admin.end().catch(() => {});
  await database.drop();
}
