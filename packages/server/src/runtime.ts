import path from "node:path";
import type { Logger } from "pino";
import type pg from "pg";
import type { Config } from "./config.js";
import { developmentMasterKey, SecretBox } from "./crypto/secrets.js";
import { startEmbeddedPostgres } from "./db/embedded.js";
import { assertMigrated, migrate } from "./db/migrate.js";
import { sessionsFollowNiceness } from "./db/niceness.js";
import { createPool } from "./db/pool.js";
import {
  StoreChangeListener,
  type StoreChangeListenerOptions,
  type StoreChanges,
} from "./db/store-changes.js";
import { RateLimiter } from "./http/rate-limit.middleware.js";
import { Outbound } from "./net/outbound.js";
import type { Clock } from "./clock.js";
import { createMailer, type Mailer } from "./mail/mailer.js";
import { AdminAuthService } from "./modules/admin/admin-auth.service.js";
import { CustomersAdminService } from "./modules/customers/customers.admin.service.js";
import { CustomersService } from "./modules/customers/customers.service.js";
import { OverviewService } from "./modules/overview/overview.service.js";
import { PointsPreviewService, PointsService } from "./modules/points/points.service.js";
import { DemoService } from "./modules/demo/demo.service.js";
import { IdempotencyService } from "./modules/idempotency/idempotency.service.js";
import { ActivitiesService } from "./modules/activities/activities.service.js";
import { OrdersService } from "./modules/orders/orders.service.js";
import { ProgramService } from "./modules/program/program.service.js";
import { ClubsService } from "./modules/points/clubs.service.js";
import { RulesService } from "./modules/points/rules.service.js";
import { PlatformsService } from "./modules/platforms/platforms.service.js";
import { ReferralsService } from "./modules/referrals/referrals.service.js";
import { RewardsAdminService } from "./modules/rewards/rewards.admin.service.js";
import { RewardsService } from "./modules/rewards/rewards.service.js";
import { StorefrontCache } from "./modules/storefront/storefront.cache.js";
import { WebhooksService } from "./modules/webhooks/webhooks.service.js";
import { ApiKeysService } from "./modules/stores/api-keys.service.js";
import { StoresService } from "./modules/stores/stores.service.js";
import { WidgetsService } from "./modules/widgets/widgets.service.js";

export interface Services {
  adminAuth: AdminAuthService;
  /** Tells every process's in-memory copies when a store's data changed. */
  changes: StoreChanges;
  stores: StoresService;
  apiKeys: ApiKeysService;
  demo: DemoService;
  /** The Idempotency-Key of the POST operations: their kept responses. */
  idempotency: IdempotencyService;
  orders: OrdersService;
  activities: ActivitiesService;
  program: ProgramService;
  rules: RulesService;
  clubs: ClubsService;
  webhooks: WebhooksService;
  platforms: PlatformsService;
  rewards: RewardsService;
  /** The back-office's side of rewards: their fields, voucher versions and activity. */
  rewardsAdmin: RewardsAdminService;
  referrals: ReferralsService;
  widgets: WidgetsService;
  /** What products earn: the storefront's calculate, served from memory. */
  points: PointsService;
  /** What a product would earn, for the back-office's rule editor. */
  pointsPreview: PointsPreviewService;
  /** A customer's history, as the storefront shows it. */
  customers: CustomersService;
  /** Customers in the back-office: search, ledger, adjustments, export, erasure. */
  customersAdmin: CustomersAdminService;
  /** The programme's dashboard. */
  overview: OverviewService;
  /** The storefront reads' in-memory copy of each store, kept in step by the store changes. */
  storefront: StorefrontCache;
  mailer: Mailer;
  /** The rate limits: counted per address first, and around every authentication. */
  rateLimits: RateLimiter;
  /** Every request to a host a store names (platform, webhook endpoints) goes through it. */
  outbound: Outbound;
}

/** Everything a request or a command needs; built once per process. */
export interface AppContext {
  config: Config;
  logger: Logger;
  pool: pg.Pool;
  clock: Clock;
  services: Services;
}

/**
 * `changes` tells in-memory copies (credentials, storefront data) when the database changed;
 * until it listens, they read through to the database.
 */
export function createServices(
  config: Config,
  pool: pg.Pool,
  secrets: SecretBox,
  logger: Logger,
  changes: StoreChanges,
  clock: Clock = clockFor(config),
): Services {
  const stores = new StoresService(pool);
  const apiKeys = new ApiKeysService(pool, secrets, stores, changes);
  const storefront = new StorefrontCache(stores, changes);
  // Every request to a host a store names (its platform, its webhook endpoints) goes through it.
  const outbound = new Outbound({ allowPrivateUrls: config.allowPrivateUrls });
  const platforms = new PlatformsService(
    pool,
    secrets,
    { timeoutMs: config.platformTimeoutMs, outbound },
    storefront,
    logger,
  );
  const mailer = createMailer({
    url: config.smtp.url,
    from: config.smtp.from,
    outboxDir: path.join(config.dataDir, "mail"),
    logger,
  });
  const referrals = new ReferralsService(pool, secrets, platforms, mailer, logger, clock);
  const widgets = new WidgetsService(pool, storefront, referrals, logger);
  const rules = new RulesService(pool);
  const clubs = new ClubsService(pool);
  const rewardsAdmin = new RewardsAdminService(pool);
  return {
    adminAuth: new AdminAuthService(pool, secrets, config.adminTokenTtlSeconds),
    changes,
    stores,
    apiKeys,
    demo: new DemoService(pool, {
      stores,
      apiKeys,
      rules,
      clubs,
      rewardsAdmin,
      widgets,
      referrals,
    }),
    idempotency: new IdempotencyService(pool, secrets),
    orders: new OrdersService(pool, logger, clock),
    activities: new ActivitiesService(pool, clock),
    program: new ProgramService(pool, clock, mailer, logger),
    rules,
    clubs,
    webhooks: new WebhooksService(pool, secrets, config.webhooks, logger, outbound),
    platforms,
    rewards: new RewardsService(
      pool,
      storefront,
      platforms,
      logger,
      config.claimReconcileAfterMs,
      clock,
    ),
    rewardsAdmin,
    referrals,
    widgets,
    points: new PointsService(pool, storefront),
    pointsPreview: new PointsPreviewService(pool),
    customers: new CustomersService(pool, clock, storefront),
    customersAdmin: new CustomersAdminService(pool, clock),
    overview: new OverviewService(pool, clock),
    storefront,
    mailer,
    rateLimits: new RateLimiter(config.rateLimits, logger),
    outbound,
  };
}

/** Today, or the configured day when an operator rehearses revision lifecycles. */
export function clockFor(config: Config): Clock {
  const override = config.revisionDateOverride;
  return override ? () => override : () => new Date();
}

export interface Runtime {
  context: AppContext;
  databaseUrl: string;
  /** Start it in processes that serve storefront reads. */
  storeChanges: StoreChangeListener;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** Applies pending migrations first (default MIGRATE_ON_START); false refuses them pending. */
  migrate?: boolean;
  /** An embedded cluster a killed process left running becomes this one's to stop (default). */
  adoptEmbedded?: boolean;
  /** The pool's connections (default DATABASE_POOL_SIZE). */
  poolSize?: number;
  /** What today is (default the configured day, else the real one): tests move it. */
  clock?: Clock;
  /** Tests shorten the store-change listener's delays. */
  storeChanges?: Partial<Omit<StoreChangeListenerOptions, "connectionString" | "logger">>;
}

/** The PostgreSQL a process works on. */
export interface Database {
  url: string;
  /** Stops the embedded server when this process started (or adopted) it. */
  close(): Promise<void>;
}

/** DATABASE_URL's server, or the embedded one (started when needed) when it is unset. */
export async function openDatabase(
  config: Config,
  logger: Logger,
  options: Pick<RuntimeOptions, "adoptEmbedded"> = {},
): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl, close: async () => {} };
  const embedded = await startEmbeddedPostgres(
    config.dataDir,
    config.embeddedPostgresPort,
    logger,
    { adopt: options.adoptEmbedded },
  );
  return { url: embedded.url, close: () => embedded.stop() };
}

/**
 * Connects to PostgreSQL (DATABASE_URL, or the embedded server when it is unset), applies
 * pending migrations, and builds the services: the one composition root of the server, the
 * CLI, the tests and the benchmarks. `logger` is where everything logs.
 */
export async function openRuntime(
  config: Config,
  logger: Logger,
  options: RuntimeOptions = {},
): Promise<Runtime> {
  const database = await openDatabase(config, logger, options);
  const databaseUrl = database.url;
  try {
    // Without migrating, a schema older than the code is refused with a pointer to `loyalty
    // migrate`, rather than showing up as the first query's "relation … does not exist".
    if (options.migrate ?? config.migrateOnStart) await migrate(databaseUrl, logger);
    else await assertMigrated(databaseUrl);
    const masterKey = config.masterKey ?? (await developmentMasterKey(config.dataDir));
    if (!config.masterKey) {
      logger.warn(
        { file: `${config.dataDir}/master.key` },
        "LOYALTY_MASTER_KEY is not set: using the development master key of the data directory",
      );
    }
    const pool = createPool(databaseUrl, options.poolSize ?? config.databasePoolSize);
    pool.on("error", (error) => logger.error({ err: error }, "idle database connection failed"));
    sessionsFollowNiceness(pool, logger);
    const storeChanges = new StoreChangeListener({
      connectionString: databaseUrl,
      logger,
      ...options.storeChanges,
    });
    const clock = options.clock ?? clockFor(config);
    const services = createServices(
      config,
      pool,
      SecretBox.fromText(masterKey),
      logger,
      storeChanges,
      clock,
    );
    const context: AppContext = { config, logger, pool, clock, services };
    const release = async () => {
      // Responses already sent keep their Idempotency-Key before anything closes.
      await services.idempotency.settle();
      await storeChanges.stop();
      services.mailer.close();
      await services.outbound.close();
      await services.rateLimits.close();
      // And those of requests that answered meanwhile.
      await services.idempotency.settle();
      await pool.end();
    };
    // A process that runs the commands in turn (the tests) must not keep a refused one's
    // connections and sockets.
    await context.services.apiKeys.assertMasterKeyReadsKeys().catch(async (error: unknown) => {
      await release();
      throw error;
    });
    let closing: Promise<void> | undefined;
    return {
      context,
      databaseUrl,
      storeChanges,
      // Once, however often it is called (a failed listen and a signal may both ask), and the
      // embedded database is stopped even when closing the connections failed.
      close: () =>
        (closing ??= (async () => {
          try {
            await release();
          } finally {
            await database.close();
          }
        })()),
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
