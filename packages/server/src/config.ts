import { isIP } from "node:net";
import path from "node:path";
import { z } from "zod";

const booleanText = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((value) => value === "true" || value === "1" || value === "yes");

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === "" ? undefined : value))
  .optional();

/**
 * Every setting comes from the environment, validated once at start-up. Defaults make the
 * one-line start work on a laptop; production sets DATABASE_URL and LOYALTY_MASTER_KEY.
 */
const environmentSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: optionalText,
  DATABASE_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// connection URL")
      .optional(),
  ),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  LOYALTY_DATA_DIR: z.string().default(".data"),
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1024).max(65535).default(54329),
  LOYALTY_MASTER_KEY: optionalText.pipe(
    z
      .string()
      .regex(
        /^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/,
        "must be 32 bytes as 64 hexadecimal characters or base64 (openssl rand -hex 32)",
      )
      .optional(),
  ),
  MIGRATE_ON_START: booleanText.default(true),
  PROBLEM_BASE_URI: z
    .url({ protocol: /^https?$/ })
    .default("https://loyalty.dev/problems")
    .transform((value) => value.replace(/\/+$/, "")),
  REVISION_DATE_OVERRIDE: optionalText.pipe(
    z.iso.date("must be a day in YYYY-MM-DD format").optional(),
  ),
  SMTP_URL: optionalText.pipe(
    z.url({ protocol: /^smtps?$/, error: "must be an smtp:// or smtps:// URL" }).optional(),
  ),
  SMTP_FROM: optionalText.pipe(z.string().optional()),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  BODY_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb)$/i, "must be a size such as 1mb or 512kb")
    .default("1mb"),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(65_000),
  HEAP_GROWTH_PERCENT: z.coerce.number().int().min(0).max(300).default(100),
  WORKERS: z.enum(["in-process", "off"]).default("in-process"),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(8),
  WORKER_HEARTBEAT_MS: z.coerce.number().int().min(50).default(5_000),
  WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(30).default(10),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).default(30_000),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  STOREFRONT_MAX_AGE: z.coerce.number().int().min(0).max(86_400).default(60),
  PLATFORM_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  ALLOW_PRIVATE_URLS: booleanText.default(false),
  CLAIM_RECONCILE_AFTER_MS: z.coerce.number().int().min(0).default(120_000),
  ADMIN_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900),
  TRUST_PROXY: optionalText.transform(trustProxy),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60),
  RATE_LIMIT_STOREFRONT: z.coerce.number().int().min(0).max(1_000_000_000).default(6_000),
  RATE_LIMIT_CUSTOMER: z.coerce.number().int().min(0).max(1_000_000_000).default(120),
  RATE_LIMIT_API_KEY: z.coerce.number().int().min(0).max(1_000_000_000).default(12_000),
  RATE_LIMIT_ADMIN: z.coerce.number().int().min(0).max(1_000_000_000).default(1_200),
  RATE_LIMIT_ADMIN_LOGIN: z.coerce.number().int().min(0).max(1_000_000_000).default(10),
  RATE_LIMIT_FAILED_AUTH: z.coerce.number().int().min(0).max(1_000_000_000).default(20),
  RATE_LIMIT_REDIS_URL: optionalText.transform(redisUrl),
  RATE_LIMIT_REDIS_PREFIX: z
    .string()
    .regex(/^\S{1,64}$/, "must be 1 to 64 characters, without spaces")
    .default("loyalty:rl:"),
  RATE_LIMIT_REDIS_TIMEOUT_MS: z.coerce.number().int().min(1).max(10_000).default(100),
  BACK_OFFICE_DIR: optionalText,
  METRICS_PORT: optionalText.pipe(
    z.coerce.number<string | undefined>().int().min(0).max(65535).optional(),
  ),
  METRICS_HOST: optionalText,
});

export interface Config {
  env: "development" | "production" | "test";
  port: number;
  host: string | undefined;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  dataDir: string;
  embeddedPostgresPort: number;
  /** Hex or base64; undefined lets development create one in the data directory. */
  masterKey: string | undefined;
  migrateOnStart: boolean;
  problemBaseUri: string;
  /** Evaluates revision lifecycles as of this day instead of today (staging rehearsals). */
  revisionDateOverride: Date | undefined;
  smtp: { url: string | undefined; from: string };
  logLevel: string;
  bodyLimit: string;
  shutdownTimeoutMs: number;
  /**
   * Node's defaults let a client hold a connection for a minute before its headers are complete
   * and five minutes for its request; these bound slow clients. Keep-alive outlives a typical
   * load balancer's 60 s idle timeout, so that the balancer, not this server, closes an idle
   * connection (otherwise it may send a request on a connection this server is closing).
   */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number };
  /** How far the old generation may grow past what a full collection kept (src/heap.ts). */
  heapGrowthPercent: number;
  /** Run the job workers inside the API process, or leave them to `loyalty worker`. */
  workers: "in-process" | "off";
  workerConcurrency: number;
  /** How often a worker says it is alive; one silent for six beats is presumed dead. */
  workerHeartbeatMs: number;
  webhooks: { maxAttempts: number; retryBaseMs: number; timeoutMs: number };
  /** Cache-Control max-age (seconds) of the storefront reads (calculate and calculate-many,
   * rewards, widgets). */
  storefrontMaxAge: number;
  /** How long a store's platform has to answer (claims, referee codes, referral checks). */
  platformTimeoutMs: number;
  /**
   * Whether the service's requests (a platform, a webhook endpoint) may go to its own machine or
   * network (loopback, private, link-local, multicast addresses): for platforms and receivers
   * hosted next to the service. Off, such a URL is refused when it is saved, and every
   * connection's address is checked when it is made, so that a name resolving to an internal
   * host reaches nothing.
   */
  allowPrivateUrls: boolean;
  /**
   * Age after which a claim still holding its points is settled by the reconciliation job: its
   * request died between reserving the points and hearing from the platform. Longer than the
   * platform timeout, so that a request still waiting is never overtaken.
   */
  claimReconcileAfterMs: number;
  /** Lifetime of a back-office access token. */
  adminTokenTtlSeconds: number;
  /**
   * Express's `trust proxy`: which proxies' X-Forwarded-For to believe, so that the rate
   * limits count clients, not the load balancer: a number of hops, or the proxies' addresses
   * and subnets. Unset: the connection's address.
   */
  trustProxy: number | string | undefined;
  /**
   * Requests per window and per client (0: no limit), counted by each API process, or in Redis
   * for all of them.
   */
  rateLimits: RateLimits;
  /**
   * The back-office web app's built files (index.html, assets/); undefined: the `dist/` of the
   * installed `@loyalty/back-office`.
   */
  backOfficeDir: string | undefined;
  /**
   * Prometheus metrics at `/metrics` on a port of their own (0: any free port), on METRICS_HOST
   * or else HOST's interfaces; undefined: no metrics served, and none timed per request.
   */
  metrics: { port: number; host: string | undefined } | undefined;
}

export interface RateLimits {
  windowSeconds: number;
  /** Public storefront operations, per client address. */
  storefront: number;
  /** Operations authenticated by the customer hash, per store and customer. */
  customer: number;
  /** Orders and refunds, per API key. */
  apiKey: number;
  /** The back-office, per access token. */
  admin: number;
  /** `POST /admin/token`, per client address: password guessing. */
  adminLogin: number;
  /**
   * Failed authentications (a wrong API key, token or customer hash), per client address: past
   * it, that address's unauthenticated attempts are refused before any credential is looked up.
   */
  failedAuth: number;
  /**
   * The Redis every API process counts in, so that a client gets each limit once whatever
   * process answers it; undefined: each process counts in its own memory. Keys start with
   * `prefix`, then the policy. A count Redis has not answered within `timeoutMs` is counted in
   * memory instead, as are all while Redis is unavailable.
   */
  redis: { url: string; prefix: string; timeoutMs: number } | undefined;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  const parsed = environmentSchema.safeParse(environment);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`),
    );
  }
  const env = parsed.data;
  const problems: string[] = [];
  // Every process sharing a database must share the key that encrypts its secrets: a key
  // generated per machine would leave the others unable to read the API keys.
  if (!env.LOYALTY_MASTER_KEY && (env.NODE_ENV === "production" || env.DATABASE_URL)) {
    problems.push(
      `LOYALTY_MASTER_KEY: required ${env.DATABASE_URL ? "with DATABASE_URL" : "in production"} (it encrypts API keys and platform credentials; generate one with openssl rand -hex 32 and give every process the same)`,
    );
  }
  if (env.NODE_ENV === "production" && !env.DATABASE_URL) {
    problems.push(
      "DATABASE_URL: required in production (the embedded PostgreSQL is for development machines)",
    );
  }
  // A code's creation may take two requests (PrestaShop looks the code up first).
  if (env.CLAIM_RECONCILE_AFTER_MS < 2 * env.PLATFORM_TIMEOUT_MS) {
    problems.push(
      `CLAIM_RECONCILE_AFTER_MS: must be at least twice PLATFORM_TIMEOUT_MS (${2 * env.PLATFORM_TIMEOUT_MS}), or a claim still waiting for its platform could be settled under it`,
    );
  }
  // Node refuses to create a server otherwise.
  if (env.HTTP_HEADERS_TIMEOUT_MS > env.HTTP_REQUEST_TIMEOUT_MS) {
    problems.push(
      `HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS (${env.HTTP_REQUEST_TIMEOUT_MS}): the headers are part of the request`,
    );
  }
  if (env.METRICS_PORT !== undefined && env.METRICS_PORT !== 0 && env.METRICS_PORT === env.PORT) {
    problems.push(
      `METRICS_PORT: must differ from PORT (${env.PORT}): the metrics are served apart from the API`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    env: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    databasePoolSize: env.DATABASE_POOL_SIZE,
    dataDir: path.resolve(env.LOYALTY_DATA_DIR),
    embeddedPostgresPort: env.EMBEDDED_POSTGRES_PORT,
    masterKey: env.LOYALTY_MASTER_KEY,
    migrateOnStart: env.MIGRATE_ON_START,
    problemBaseUri: env.PROBLEM_BASE_URI,
    revisionDateOverride: env.REVISION_DATE_OVERRIDE
      ? new Date(`${env.REVISION_DATE_OVERRIDE}T00:00:00Z`)
      : undefined,
    smtp: { url: env.SMTP_URL, from: env.SMTP_FROM ?? "Loyalty <no-reply@localhost>" },
    logLevel: env.LOG_LEVEL,
    bodyLimit: env.BODY_LIMIT,
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    http: {
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    heapGrowthPercent: env.HEAP_GROWTH_PERCENT,
    workers: env.WORKERS,
    workerConcurrency: env.WORKER_CONCURRENCY,
    workerHeartbeatMs: env.WORKER_HEARTBEAT_MS,
    webhooks: {
      maxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    },
    storefrontMaxAge: env.STOREFRONT_MAX_AGE,
    platformTimeoutMs: env.PLATFORM_TIMEOUT_MS,
    allowPrivateUrls: env.ALLOW_PRIVATE_URLS,
    claimReconcileAfterMs: env.CLAIM_RECONCILE_AFTER_MS,
    adminTokenTtlSeconds: env.ADMIN_TOKEN_TTL_SECONDS,
    trustProxy: env.TRUST_PROXY,
    rateLimits: {
      windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS,
      storefront: env.RATE_LIMIT_STOREFRONT,
      customer: env.RATE_LIMIT_CUSTOMER,
      apiKey: env.RATE_LIMIT_API_KEY,
      admin: env.RATE_LIMIT_ADMIN,
      adminLogin: env.RATE_LIMIT_ADMIN_LOGIN,
      failedAuth: env.RATE_LIMIT_FAILED_AUTH,
      redis: env.RATE_LIMIT_REDIS_URL
        ? {
            url: env.RATE_LIMIT_REDIS_URL,
            prefix: env.RATE_LIMIT_REDIS_PREFIX,
            timeoutMs: env.RATE_LIMIT_REDIS_TIMEOUT_MS,
          }
        : undefined,
    },
    backOfficeDir:
      env.BACK_OFFICE_DIR === undefined ? undefined : path.resolve(env.BACK_OFFICE_DIR),
    metrics:
      env.METRICS_PORT === undefined
        ? undefined
        : { port: env.METRICS_PORT, host: env.METRICS_HOST ?? env.HOST },
  };
}

/** The names Express's `trust proxy` gives to address ranges. */
const PROXY_RANGES = ["loopback", "linklocal", "uniquelocal"];

/**
 * An address, or a subnet as address/prefix (or an IPv4 address/netmask) no wider than /8: a
 * subnet as wide as the internet (`0.0.0.0/0`, `::/0`) is `true` under another name.
 */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGES.includes(entry)) return true;
  const [address = "", mask, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (mask === undefined) return true;
  if (/^\d{1,3}$/.test(mask)) {
    return Number(mask) >= 8 && Number(mask) <= (family === 4 ? 32 : 128);
  }
  if (family !== 4 || isIP(mask) !== 4) return false;
  return Number(mask.split(".")[0]) === 255;
}

/**
 * Which proxies' X-Forwarded-For to believe: a number of hops, or their addresses and subnets
 * (`loopback, 10.0.0.0/8`). Never `true`: it believes the header whoever sends it, so any client
 * picks the address it is counted under and escapes every per-address limit.
 */
function trustProxy(value: string | undefined, context: z.RefinementCtx): Config["trustProxy"] {
  if (value === undefined || value.toLowerCase() === "false") return undefined;
  if (value.toLowerCase() === "true") {
    context.addIssue({
      code: "custom",
      message:
        "`true` trusts any client's X-Forwarded-For (a client could pick its own address and escape every per-address limit); set the number of proxies in front (1) or their addresses (10.0.0.0/8)",
    });
    return z.NEVER;
  }
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(",").map((entry) => entry.trim());
  const invalid = entries.filter((entry) => !isProxyAddress(entry));
  if (invalid.length > 0) {
    context.addIssue({
      code: "custom",
      message: `must be the number of proxies in front (1) or their addresses and subnets no wider than /8, comma-separated (10.0.0.0/8, fd00::/8, loopback, linklocal, uniquelocal); not ${invalid.map((entry) => `"${entry}"`).join(", ")}`,
    });
    return z.NEVER;
  }
  return entries.join(", ");
}

/**
 * A Redis URL: redis:// (rediss:// for TLS), a host, a database number if any. What is said of
 * a wrong one never repeats it: it may hold a password.
 */
function redisUrl(value: string | undefined, context: z.RefinementCtx): string | undefined {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || !/^rediss?:$/.test(url.protocol) || url.hostname === "") {
    context.addIssue({
      code: "custom",
      message: "must be a redis:// or rediss:// URL (redis://:password@host:6379/0)",
    });
    return z.NEVER;
  }
  if (!/^\/?\d*$/.test(url.pathname)) {
    context.addIssue({
      code: "custom",
      message: "must name a database by its number, if at all (redis://host:6379/0)",
    });
    return z.NEVER;
  }
  return value;
}
