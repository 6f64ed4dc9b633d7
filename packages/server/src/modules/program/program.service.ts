import {
  programSettingsSchema,
  type ProgramSettings,
  type ProgramSettingsInput,
} from "@loyalty/shared-types";
import type { Logger } from "pino";
import type pg from "pg";
import type { Clock } from "../../clock.js";
import { withTransaction, type Queryable } from "../../db/pool.js";
import { parseRequest } from "../../http/validate.js";
import { enqueue, jobSql } from "../../jobs/queue.js";
import type { Mailer } from "../../mail/mailer.js";
import {
  BACKGROUND_PRIORITY,
  recordEvents,
  type OutboxEvent,
} from "../events/events.repository.js";
import { appendLedgerEntries, releaseDueLots } from "../ledger/ledger.repository.js";
import { expiryWarningEmail } from "./expiry-email.js";
import {
  dueInactivityExpiry,
  clearInactivityWarnings,
  dueLifetimeExpiry,
  findExpiryRecipient,
  warnInactivityExpiry,
  warnLifetimeExpiry,
  type Batch,
  type Expiring,
  type ExpiryWarning,
} from "./expiry.repository.js";
import { findProgramSettings, saveProgramSettings } from "./program.repository.js";
import {
  dueClubReviews,
  currentClubReview,
  startStoreClubReview,
  reviewClubs,
  storeCustomersAfter,
} from "../points/club-reviews.js";

/** The email job of a warning, added by SQL for a whole batch. */
const warningJob = jobSql("send-expiry-warning", {
  customerId: "w.customer_id",
  points: "w.points",
  expiresAt: `to_char(w.expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
});

/** Rows (lots or customers) per transaction: short transactions, each holding few rows. */
const BATCH = 5_000;
/**
 * Transactions a batch job runs at once: PostgreSQL works on both (the jobs are its work, not
 * this process's), which is what takes 1M customers' expiry under the 2 minutes.
 */
const BATCH_LANES = 2;
/** Customers per club review: each reads their figures, so fewer than the other jobs. */
const CLUB_BATCH = 1_000;

/** Each store's values of a batch's rows, in their order: the batch jobs work store by store. */
function byStore<R extends { storeId: number }, T>(
  rows: readonly R[],
  value: (row: R) => T,
): Map<number, T[]> {
  const grouped = new Map<number, T[]>();
  for (const row of rows) {
    const values = grouped.get(row.storeId);
    if (values) values.push(value(row));
    else grouped.set(row.storeId, [value(row)]);
  }
  return grouped;
}

/**
 * Writes each store's events of a batch (the outbox takes one store at a time), their
 * deliveries behind the other jobs.
 */
async function recordByStore(
  db: Queryable,
  events: readonly { storeId: number; event: OutboxEvent }[],
): Promise<void> {
  for (const [storeId, storeEvents] of byStore(events, (row) => row.event)) {
    await recordEvents(db, storeId, storeEvents, { background: true });
  }
}

/** The programme's settings, and the jobs that apply them over time. */
export class ProgramService {
  constructor(
    private readonly pool: pg.Pool,
    /** What today is for pending periods and expiry (tests move it). */
    private readonly clock: Clock,
    private readonly mailer: Mailer,
    private readonly logger: Logger,
  ) {}

  settings(storeId: number): Promise<ProgramSettings> {
    return findProgramSettings(this.pool, storeId);
  }

  /**
   * Sets the whole document; errors name the fields. Points already earned keep the date they
   * become spendable: a setting applies to what is earned from now on. An expiry policy applies
   * to every point, with its warning first.
   */
  async saveSettings(storeId: number, input: ProgramSettingsInput): Promise<ProgramSettings> {
    const settings = parseRequest(programSettingsSchema, input, "body");
    await withTransaction(this.pool, async (tx) => {
      const before = await findProgramSettings(tx, storeId);
      await saveProgramSettings(tx, storeId, settings);
      // Another policy may give or take clubs: every customer is reviewed, in the background.
      if (JSON.stringify(before.clubs) !== JSON.stringify(settings.clubs)) {
        await startStoreClubReview(tx, storeId, true);
      }
    });
    return this.settings(storeId);
  }

  /**
   * Frees every held earning whose date has come, in batches of their own transactions, and
   * returns how many. Lots a refund is taking points back from are left to the next run.
   */
  async releaseDuePoints(batchSize = BATCH): Promise<number> {
    const now = this.clock();
    let released = 0;
    for (;;) {
      const freed = await releaseDueLots(this.pool, now, batchSize);
      released += freed;
      if (freed < batchSize) return released;
    }
  }

  /**
   * Applies the stores' expiry policies as of now: warns the customers whose points expire
   * within the warning period (`POINTS_EXPIRING`, and an email job), then expires what is due
   * (`expiry` transactions, `POINTS_EXPIRED`). In batches, each its own transaction; returns
   * how many customers were warned (stores with no warning period warn nobody) and how many
   * lost points.
   */
  async expirePoints(batchSize = BATCH): Promise<{ warned: number; expired: number }> {
    const now = this.clock();
    const warned = await this.warnOfExpiry(now, batchSize);
    const expired = await this.expireDue(now, batchSize);
    return { warned, expired };
  }

  /** The warnings of expirePoints: how many customers were warned. */
  async warnOfExpiry(now = this.clock(), batchSize = BATCH): Promise<number> {
    let warned = 0;
    for (const warn of [warnLifetimeExpiry, warnInactivityExpiry]) {
      warned += await this.inBatches(
        batchSize,
        (tx) => warn(tx, now, batchSize),
        (tx, items) => this.announce(tx, items),
      );
    }
    return warned;
  }

  /** The expiries of expirePoints: how many customers lost points. */
  async expireDue(now = this.clock(), batchSize = BATCH): Promise<number> {
    let expired = 0;
    expired += await this.inBatches(
      batchSize,
      (tx) => dueLifetimeExpiry(tx, now, batchSize),
      (tx, items) => this.expire(tx, items, now),
    );
    expired += await this.inBatches(
      batchSize,
      (tx) => dueInactivityExpiry(tx, now, batchSize),
      async (tx, items) => {
        // The next points to expire for inactivity need a warning of their own.
        await clearInactivityWarnings(
          tx,
          items.map((item) => item.customerId),
        );
        return this.expire(tx, items, now);
      },
    );
    return expired;
  }

  /**
   * Reviews the clubs time alone changes (a rolling period moving on, a calendar year ending, a
   * kept club's period ending): every customer whose review date has come, in batches of their
   * own transactions. Returns how many were reviewed.
   */
  async reviewDueClubs(batchSize = CLUB_BATCH): Promise<number> {
    const now = this.clock();
    return this.inBatches(
      batchSize,
      (tx) => dueClubReviews(tx, now, batchSize),
      async (tx, due) => {
        for (const [storeId, ids] of byStore(due, (row) => row.customerId)) {
          await reviewClubs(tx, storeId, ids, now, { due: true });
        }
        return due.length;
      },
    );
  }

  /**
   * Reviews the club of every customer of a store (after its clubs or its club policy changed),
   * a batch per job: each job queues the next from where it stopped. A newer change bumps the
   * store's clubs generation and starts a review of its own: this one then stops.
   */
  async reviewStoreClubs(
    walk: { storeId: number; afterId: number; generation: number; fresh: boolean },
    batchSize = CLUB_BATCH,
  ): Promise<void> {
    const now = this.clock();
    await withTransaction(this.pool, async (tx) => {
      if (!(await currentClubReview(tx, walk.storeId, walk.generation))) return;
      const ids = await storeCustomersAfter(tx, walk.storeId, walk.afterId, batchSize);
      await reviewClubs(tx, walk.storeId, ids, now, { due: true, fresh: walk.fresh });
      if (ids.length === batchSize) {
        await enqueue(tx, "review-store-clubs", {
          ...walk,
          afterId: ids[ids.length - 1] as number,
        });
      }
    });
  }

  /** Sends a customer's expiry warning (the job `announce` queued). */
  async sendExpiryWarning(warning: {
    customerId: number;
    points: number;
    expiresAt: string;
  }): Promise<void> {
    const recipient = await findExpiryRecipient(this.pool, warning.customerId);
    // Erased, or the address gone since: nothing to send.
    if (!recipient) return;
    await this.mailer.send(
      expiryWarningEmail({
        ...recipient,
        to: recipient.email,
        points: warning.points,
        expiresAt: new Date(warning.expiresAt),
      }),
    );
    this.logger.info({ customerId: warning.customerId }, "points expiry warning sent");
  }

  /**
   * Runs `find` then `apply` in a transaction per batch, on BATCH_LANES connections at once,
   * until a batch is not full; returns the sum of what `apply` counted. The finds skip the rows
   * another lane holds (SKIP LOCKED) and lock customers in one order, so lanes share the work
   * and never wait on each other for long.
   */
  private async inBatches<T>(
    batchSize: number,
    find: (tx: Queryable) => Promise<Batch<T>>,
    apply: (tx: Queryable, items: T[]) => Promise<number>,
  ): Promise<number> {
    let done = 0;
    const lane = async () => {
      for (;;) {
        const processed = await withTransaction(this.pool, async (tx) => {
          const batch = await find(tx);
          // Read `done` after the await: the other lanes add to it meanwhile.
          const counted = await apply(tx, batch.items);
          done += counted;
          return batch.processed;
        });
        if (processed < batchSize) return;
      }
    };
    // Every lane ends before the job does, even when one fails.
    const lanes = await Promise.allSettled(Array.from({ length: BATCH_LANES }, lane));
    for (const result of lanes) if (result.status === "rejected") throw result.reason;
    return done;
  }

  /** Announces the warnings of stores that warn ahead; returns how many. */
  private async announce(tx: Queryable, warnings: ExpiryWarning[]): Promise<number> {
    const told = warnings.filter((warning) => warning.announce);
    await recordByStore(
      tx,
      told.map((warning) => ({
        storeId: warning.storeId,
        event: {
          type: "POINTS_EXPIRING",
          data: {
            customer: { externalId: warning.externalId },
            points: warning.points,
            expiresAt: warning.expiresAt.toISOString(),
            emailed: warning.email !== null,
          },
        },
      })),
    );
    // One statement for the batch's emails: a job per customer whose address the service has.
    const mailed = told.filter((warning) => warning.email !== null);
    if (mailed.length > 0) {
      // add_jobs: one insert for the batch (add_job per row costs about 2 ms each).
      await tx.query(
        `SELECT graphile_worker.add_jobs(array_agg(
           ROW($1::text, ${warningJob.payload}, NULL, NULL, NULL, NULL,
               ${BACKGROUND_PRIORITY}, NULL)::graphile_worker.job_spec))
         FROM unnest($2::bigint[], $3::bigint[], $4::timestamptz[])
           AS w(customer_id, points, expires_at)`,
        [
          warningJob.task,
          mailed.map((warning) => warning.customerId),
          mailed.map((warning) => warning.points),
          mailed.map((warning) => warning.expiresAt),
        ],
      );
    }
    return told.length;
  }

  /** Writes the expiries and their events; returns how many customers lost points. */
  private async expire(tx: Queryable, expiring: Expiring[], now: Date): Promise<number> {
    if (expiring.length === 0) return 0;
    const appended = await appendLedgerEntries(
      tx,
      expiring.map((customer) => ({
        storeId: customer.storeId,
        customerId: customer.customerId,
        kind: "expiry" as const,
        points: -customer.points,
      })),
      now,
    );
    await recordByStore(
      tx,
      expiring.map((customer, index) => ({
        storeId: customer.storeId,
        event: {
          type: "POINTS_EXPIRED",
          data: {
            customer: { externalId: customer.externalId },
            points: customer.points,
            balance: appended[index]?.balanceAfter as number,
          },
        },
      })),
    );
    return expiring.length;
  }
}
