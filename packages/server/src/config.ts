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
  TRUST_PROXY: optionalText,
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3_600).default(60),
  RATE_LIMIT_STOREFRONT: z.coerce.number().int().min(0).max(1_000_000_000).default(600),
  RATE_LIMIT_CUSTOMER: z.coerce.number().int().min(0).max(1_000_000_000).default(120),
  RATE_LIMIT_API_KEY: z.coerce.number().int().min(0).max(1_000_000_000).default(12_000),
  RATE_LIMIT_ADMIN: z.coerce.number().int().min(0).max(1_000_000_000).default(1_200),
  RATE_LIMIT_ADMIN_LOGIN: z.coerce.number().int().min(0).max(1_000_000_000).default(10),
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
  /** Run the job workers inside the API process, or leave them to `loyalty worker`. */
  workers: "in-process" | "off";
  workerConcurrency: number;
  /** How often a worker says it is alive; one silent for six beats is presumed dead. */
  workerHeartbeatMs: number;
  webhooks: { maxAttempts: number; retryBaseMs: number; timeoutMs: number };
  /** Cache-Control max-age (seconds) of the storefront reads (calculate, rewards, widgets). */
  storefrontMaxAge: number;
  /** How long a store's platform has to answer (claims, referee codes, referral checks). */
  platformTimeoutMs: number;
  /**
   * Whether the back-office may aim the service's requests (a platform, a webhook endpoint) at
   * its own machine or network (loopback, private or link-local addresses): for platforms and
   * receivers hosted next to the service. Off, a store admin cannot reach internal hosts.
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
   * limits count clients, not the load balancer. Unset: the connection's address.
   */
  trustProxy: boolean | number | string | undefined;
  /** Requests per window and per client (0: no limit), counted by each API process. */
  rateLimits: RateLimits;
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
    trustProxy: trustProxy(env.TRUST_PROXY),
    rateLimits: {
      windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS,
      storefront: env.RATE_LIMIT_STOREFRONT,
      customer: env.RATE_LIMIT_CUSTOMER,
      apiKey: env.RATE_LIMIT_API_KEY,
      admin: env.RATE_LIMIT_ADMIN,
      adminLogin: env.RATE_LIMIT_ADMIN_LOGIN,
    },
  };
}

/** `true`/`false`, a number of hops, or addresses and subnets (`loopback, 10.0.0.0/8`). */
function trustProxy(value: string | undefined): Config["trustProxy"] {
  if (value === undefined) return undefined;
  if (/^(true|false)$/i.test(value)) return value.toLowerCase() === "true";
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
