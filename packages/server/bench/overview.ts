import { randomBytes } from "node:crypto";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { programOverviewSchema } from "@loyalty/shared-types";
import { pino } from "pino";
import { loadConfig } from "../src/config.js";
import { openRuntime } from "../src/runtime.js";
import { generateStore, OVERVIEW_MIX, type StoreSize } from "./store-generator.js";
import { benchDatabase, percentile, SERVER_READY, serverEnv, start, stop } from "./support.js";

/**
 * `pnpm bench:overview`: the programme overview (GET /admin/stores/{storeId}/overview) of a
 * large store, through HTTP on the real server (NODE_ENV=production) with a service admin's
 * token, one request at a time: p50 and p95 after a warm-up, for the default period (the 30
 * days ending today) and for a year. Exits 1 when the default period's p95 is over
 * OVERVIEW_P95_TARGET_MS. `pnpm bench` runs it too, at its end.
 *
 * Uses DATABASE_URL's server when set (a fresh database is created on it), else an embedded
 * PostgreSQL in a temporary directory.
 */

/** The target for the default period. */
export const OVERVIEW_P95_TARGET_MS = 200;
const WARM_UP = 5;
const REQUESTS = Number(process.env["BENCH_OVERVIEW_REQUESTS"] ?? 40);

/** The store's history (bench/store-generator.ts): what the overview sums, loose entries. */
export const OVERVIEW_STORE: StoreSize = {
  customers: 100_000,
  ledgerRows: 1_000_000,
  orders: 0,
  claims: 60_000,
  activities: 0,
  days: 730,
  loose: OVERVIEW_MIX,
};

export interface OverviewPeriodFigures {
  name: string;
  days: number;
  requests: number;
  p50: number;
  p95: number;
  max: number;
  /** Only the default period has a target. */
  overTarget: boolean;
}

export interface OverviewFigures {
  size: StoreSize;
  generationSeconds: number;
  periods: OverviewPeriodFigures[];
  /** The machine's one-minute load average after the requests, and its CPUs: shared machines vary. */
  load: { average: number; cpus: number };
}

const DAY_MS = 86_400_000;

function isoDate(instant: number): string {
  return new Date(instant).toISOString().slice(0, 10);
}

export async function signIn(base: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${base}/admin/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200) throw new Error(`sign-in: ${response.status}`);
  return ((await response.json()) as { accessToken: string }).accessToken;
}

/** One request at a time, as a merchant opening the dashboard: each answer read in full. */
export async function timeOverview(
  url: string,
  token: string,
  period: { name: string; days: number; gated: boolean },
): Promise<OverviewPeriodFigures> {
  const get = async () => {
    const began = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const body: unknown = await response.json();
    const elapsed = performance.now() - began;
    if (response.status !== 200)
      throw new Error(`${url}: ${response.status} ${JSON.stringify(body)}`);
    return { elapsed, body };
  };
  const first = programOverviewSchema.parse((await get()).body);
  if (first.daily.length !== period.days) throw new Error(`${url}: ${first.daily.length} days`);
  for (let n = 1; n < WARM_UP; n++) await get();
  const times: number[] = [];
  for (let n = 0; n < REQUESTS; n++) times.push((await get()).elapsed);
  times.sort((a, b) => a - b);
  const figures = {
    ...period,
    requests: REQUESTS,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    max: times.at(-1) ?? NaN,
  };
  process.stdout.write(
    `GET overview, ${period.name.padEnd(30)} p50 ${figures.p50.toFixed(1)} ms  p95 ${figures.p95.toFixed(1)} ms  max ${figures.max.toFixed(1)} ms\n`,
  );
  return { ...figures, overTarget: period.gated && figures.p95 > OVERVIEW_P95_TARGET_MS };
}

/**
 * Generates the large store in the database at `databaseUrl` (migrated; other stores may be
 * there), then times its overview on a server process of its own.
 */
export async function benchOverview(
  databaseUrl: string,
  masterKey: string,
): Promise<OverviewFigures> {
  const quiet = pino({ level: "error" });
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOYALTY_MASTER_KEY: masterKey });
  // Its store change listener is never started: the set-up below reads through to the database.
  const runtime = await openRuntime(config, quiet, { migrate: false, poolSize: 2 });
  const { pool, services } = runtime.context;
  try {
    const store = await services.stores.create({
      domain: `https://overview-${randomBytes(4).toString("hex")}.bench.example`,
    });
    const began = performance.now();
    await generateStore(pool, store.id, OVERVIEW_STORE);
    const generationSeconds = (performance.now() - began) / 1000;
    process.stdout.write(
      `overview store: ${OVERVIEW_STORE.customers} customers, ${OVERVIEW_STORE.ledgerRows} ledger entries, ${OVERVIEW_STORE.claims} claims, generated in ${generationSeconds.toFixed(1)} s\n`,
    );
    const email = `overview-${randomBytes(4).toString("hex")}@bench.example`;
    const password = randomBytes(18).toString("base64url");
    await services.adminAuth.createAdmin({ email, password });

    const { child, port } = await start(
      ["src/main.ts"],
      serverEnv(databaseUrl, masterKey, "off"),
      SERVER_READY,
    );
    try {
      const url = `http://127.0.0.1:${port}/admin/stores/${store.id}/overview`;
      const token = await signIn(`http://127.0.0.1:${port}`, email, password);
      const yearFrom = isoDate(Date.now() - 364 * DAY_MS);
      const periods = [
        await timeOverview(url, token, {
          name: "default (30 days)",
          days: 30,
          gated: true,
        }),
        await timeOverview(`${url}?from=${yearFrom}`, token, {
          name: "365 days",
          days: 365,
          gated: false,
        }),
      ];
      const load = { average: os.loadavg()[0] ?? NaN, cpus: os.cpus().length };
      process.stdout.write(`load average ${load.average.toFixed(1)} on ${load.cpus} CPUs\n`);
      return { size: OVERVIEW_STORE, generationSeconds, periods, load };
    } finally {
      await stop(child);
    }
  } finally {
    await runtime.close();
  }
}

/** The BENCHMARKS.md section. */
export function overviewSection(figures: OverviewFigures): string {
  const rows = figures.periods
    .map(
      (period) =>
        `| ${period.name} | ${period.p50.toFixed(1)} | **${period.p95.toFixed(1)}** | ${period.max.toFixed(1)} |`,
    )
    .join("\n");
  const { size } = figures;
  return `## Programme overview

\`GET /admin/stores/{storeId}/overview\` (\`bench/overview.ts\`, \`pnpm bench:overview\` alone) on a
generated store of ${size.customers.toLocaleString("en")} customers, ${size.ledgerRows.toLocaleString("en")} ledger entries over ${size.days} days
(more of them lately, as a growing store) and ${size.claims.toLocaleString("en")} claims, generated in ${figures.generationSeconds.toFixed(0)} s;
through HTTP with a service admin's token, one request at a time, ${REQUESTS} requests after
${WARM_UP} of warm-up, while the machine's load average was ${figures.load.average.toFixed(1)} on ${figures.load.cpus} CPUs.
Target: p95 at most ${OVERVIEW_P95_TARGET_MS} ms for the default period.

| period | p50 ms | p95 ms | max ms |
|---|---|---|---|
${rows}
`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const database = await benchDatabase();
  try {
    const figures = await benchOverview(database.url, randomBytes(32).toString("hex"));
    if (figures.periods.some((period) => period.overTarget)) {
      process.stdout.write(`p95 over the ${OVERVIEW_P95_TARGET_MS} ms target\n`);
      process.exitCode = 1;
    }
  } finally {
    await database.drop();
  }
}
