import type {
  RefundOrderRequestV1,
  RefundOrderRequestV2,
  RegisterOrderRequestV1,
  RegisterOrderRequestV2,
} from "@loyalty/shared-types";
import type { Logger } from "pino";
import type pg from "pg";
import type { AuthenticatedStore } from "../../auth/auth.types.js";
import type { Clock } from "../../clock.js";
import { Batcher } from "../../db/batcher.js";
import { withTransaction, type Queryable } from "../../db/pool.js";
import { recordEvents, type OutboxEvent } from "../events/events.repository.js";
import { appendLedgerEntries, type LedgerEntry } from "../ledger/ledger.repository.js";
import {
  clubFigures,
  heldClubs,
  heldOf,
  NO_FIGURES,
  orderAmounts,
  reviewClubs,
} from "../points/club-reviews.js";
import { clubStanding, periodStart, type ClubFigures } from "../points/clubs.js";
import { findProgramSettings } from "../program/program.repository.js";
import { completeReferrals } from "../referrals/referrals.repository.js";
import { markCodesUsed } from "../rewards/rewards.repository.js";
import {
  earnOrder,
  indexRules,
  refundedAmount,
  refundTarget,
  type EarnSnapshot,
} from "../points/points.engine.js";
import { activeRules, listClubs } from "../points/points.repository.js";
import {
  declareRefunds,
  findRefundToApply,
  lockOrder,
  orderStatus,
  lockOrdersById,
  lockOrderLots,
  lockPendingOrders,
  lockPendingRefunds,
  lockUnappliedRefunds,
  pendingRefunds,
  markOrdersProcessed,
  enqueueOrderJobs,
  enqueueRefundJobs,
  enqueueStoreCredits,
  deleteSpentStoreCredits,
  markRefundsProcessed,
  recordProcessingFailure,
  recordRefundFailure,
  registerOrders,
  updateOrdersRefundState,
  upsertCustomers,
  type NewOrder,
  type NewRefund,
  type OrderRefundState,
  type OrderRow,
  type RefundMark,
  type RefundReceipt,
  type Registration,
  type RefundRow,
  type StoredOrderPayload,
} from "./orders.repository.js";

/** Settles once `promise` has, or after `ms`, whichever comes first; never rejects. */
function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]).finally(() => clearTimeout(timer));
}

/** One order identity across revisions: `externalRef` "1001" and `externalId` 1001 are one order. */
export function orderIdentity(order: { externalRef: string } | { externalId: number }): string {
  return "externalRef" in order ? order.externalRef : String(order.externalId);
}

/** Orders one job may credit together with its own, when many are waiting. */
const BATCH_LIMIT = 200;

/**
 * Refunds one transaction of a crediting job applies: each is a few statements in turn, and a
 * batch holds its orders and their customers until it commits (claims on them wait).
 */
const REFUND_BATCH_LIMIT = 100;

/**
 * How long a store's crediting job runs before it leaves the rest to another: a stopping
 * worker waits for its running jobs.
 */
const DRAIN_MS = 5_000;

/**
 * How many batches of a store a crediting job runs at once: while one waits on PostgreSQL,
 * another computes (one at a time credited half as many orders a second).
 */
const PARALLEL_BATCHES = 4;

/**
 * How long a crediting job's last batch of orders, and its last batch of refunds, waits for an
 * order (or a row it needs) another transaction holds.
 */
const HELD_ORDER_WAIT_MS = 2_000;

/**
 * How long a store's next job waits for its running one in the process: longer than a run
 * that goes well takes (its orders' time, both last batches' waits, a batch of refunds). A
 * run stuck longer (a batch waiting on a row another session holds, a lost connection) does
 * not hold the store's crediting: the next job drains beside it, skipping the rows it holds.
 */
const RUN_WAIT_MS = DRAIN_MS + 2 * HELD_ORDER_WAIT_MS + 2_000;

/**
 * How long an order or a refund may wait, pending, before the sweep (credit-stranded-orders)
 * adds its store a crediting job: longer than a busy queue makes it wait, short enough for a
 * shopper who looks again.
 */
const STRANDED_AFTER_MS = 60_000;

/** How many orders a process remembers having credited, for their own jobs that follow. */
export const REMEMBERED_CREDITS = 20_000;

const DAY_MS = 86_400_000;

/**
 * When an order's points become spendable under a pending period of `days`: counted from the
 * order's date (the return window opens with the order), never later than `days` from now (a
 * date in the future is the store's clock, not a longer window). Null when they are spendable
 * at once: no pending period, or an order older than its window.
 */
export function pendingUntil(orderedAt: Date, days: number, now: Date): Date | null {
  if (days <= 0) return null;
  const from = Math.min(orderedAt.getTime(), now.getTime());
  const until = from + days * DAY_MS;
  return until > now.getTime() ? new Date(until) : null;
}

function eventOrder(order: Pick<OrderRow, "external_id" | "external_reference">) {
  return { externalId: order.external_id, externalReference: order.external_reference };
}

export class OrdersService {
  /**
   * Registrations are written in groups: the job queue's insert and notification cost more
   * than the order's own row, and one statement for many requests pays them once.
   */
  private readonly registrations: Batcher<NewOrder, Registration>;
  private readonly refunds: Batcher<NewRefund, RefundReceipt>;
  /**
   * Orders this process's batches credited lately (oldest first), and those a batch of it is
   * crediting now, with whether it committed. An order once credited stays processed. A batch
   * takes its orders' jobs off the queue, but not those a worker had fetched already (its
   * local queue holds up to a hundred): under load, many of those are for orders another job
   * of the same worker took into its batch, and they end here without a query, or after that
   * batch, rather than each reading the order's status (or waiting on its lock) in PostgreSQL.
   */
  private readonly credited = new Set<number>();
  private readonly crediting = new Map<number, Promise<boolean>>();
  /**
   * The crediting job of each store this process runs now, and the one waiting to run after
   * it (see creditStore).
   */
  private readonly storeRuns = new Map<number, { running: Promise<number>; waiting: boolean }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
    /** What today is for the pending period (tests move it). */
    private readonly clock: Clock,
  ) {
    this.registrations = new Batcher((orders) => registerOrders(pool, orders), {
      maxBatch: 100,
      maxInFlight: 2,
    });
    this.refunds = new Batcher((refunds) => declareRefunds(pool, refunds), {
      maxBatch: 100,
      maxInFlight: 2,
    });
  }

  /**
   * Stores the order and its processing job, then answers: points are computed by a worker.
   * The first registration of an order stands; a repeat changes nothing (a changed payload is
   * logged, corrections go through refunds).
   */
  async register(
    store: AuthenticatedStore,
    order: RegisterOrderRequestV1 | RegisterOrderRequestV2,
  ) {
    const externalId = orderIdentity(order);
    const payload: StoredOrderPayload = {
      customer: order.customer,
      currency: order.currency,
      orderedAt: order.orderedAt,
      lines: order.lines,
      shippingAmount: order.shippingAmount,
      discountAmount: order.discountAmount,
      totalPaid: order.totalPaid,
      // Absent rather than empty: a replay of an order registered before the field existed
      // compares equal to what was stored.
      ...(order.discountCodes.length > 0 && { discountCodes: order.discountCodes }),
    };
    const registration = await this.registrations.write({
      storeId: store.id,
      externalId,
      externalReference: "externalReference" in order ? (order.externalReference ?? null) : null,
      payload,
    });
    if (!registration.samePayload) {
      this.logger.warn(
        { storeId: store.id, order: externalId },
        "order registered again with a different payload: the first registration stands",
      );
    }
    return registration;
  }

  /** Stores the refund declaration, and adds or updates its store's crediting job. */
  async refund(store: AuthenticatedStore, refund: RefundOrderRequestV1 | RefundOrderRequestV2) {
    const orderExternalId = orderIdentity(refund);
    const declared = await this.refunds.write({
      storeId: store.id,
      orderExternalId,
      status: refund.status,
      creditNoteId: refund.creditNoteId ?? null,
      declaration: {
        status: refund.status,
        refundedAmount: refund.refundedAmount,
        lines: refund.lines,
        refundedAt: refund.refundedAt,
      },
    });
    if (!declared.orderKnown) {
      this.logger.warn(
        { storeId: store.id, order: orderExternalId },
        "refund declared for an order unknown to the store: kept, and applied if the order is registered",
      );
    }
    return declared;
  }

  /**
   * Credits an order (the job of its registration), with as many other pending orders of the
   * store as are waiting, in one transaction. Idempotent: a processed order is left alone, so
   * a retried or duplicated job credits nothing twice.
   */
  async processOrder(
    orderId: number,
    options: { batch: boolean } = { batch: true },
  ): Promise<number> {
    if (this.credited.has(orderId)) return 0;
    const batch = this.crediting.get(orderId);
    // A batch that failed credited nothing: the job looks for itself.
    if (batch && (await batch)) return 0;
    // A job another worker had fetched before that worker's batch credited its order (the
    // batch takes off the queue only the jobs no worker holds): say so in one query, without
    // opening a transaction.
    if ((await orderStatus(this.pool, orderId)) !== "pending") return 0;
    let settle: (committed: boolean) => void = () => {};
    const committed = new Promise<boolean>((resolve) => (settle = resolve));
    let ids: number[] = [];
    try {
      const count = await withTransaction(this.pool, async (tx) => {
        const own = await lockOrder(tx, orderId);
        if (!own || own.status === "processed") return 0;
        const others = options.batch
          ? await lockPendingOrders(tx, own.store_id, [own.id], BATCH_LIMIT - 1)
          : [];
        const orders = [own, ...others].sort((a, b) => a.id - b.id);
        ids = orders.map((order) => order.id);
        for (const id of ids) this.crediting.set(id, committed);
        await this.creditOrders(tx, own.store_id, orders);
        return orders.length;
      });
      for (const id of ids) this.remember(id);
      settle(true);
      return count;
    } catch (error) {
      settle(false);
      throw error;
    } finally {
      for (const id of ids) if (this.crediting.get(id) === committed) this.crediting.delete(id);
    }
  }

  /**
   * Credits a store's pending orders (the job its registrations add), in batches of up to
   * BATCH_LIMIT orders, each its own transaction, PARALLEL_BATCHES at a time, until a batch
   * finds fewer than that: the orders registered after it have a job that will see them (see
   * CREDIT_STORE_JOB_KEY). The batches skip the orders another transaction holds; a last one
   * waits for them and takes those still pending (an order a refund was reading, or a batch
   * of another worker that failed), so that no order is left without a job; an order held
   * past HELD_ORDER_WAIT_MS is left to a new job of the store. After `drainMs` it starts no
   * batch and leaves the rest to a new job of the store: a worker asked to stop waits for its
   * running jobs, and a store that keeps registering must not hold it. A batch that fails hands each
   * of its orders to a job of its own (process-order: credited alone, with the queue's
   * retries) and the others go on. Then it applies the store's pending refunds (see
   * drainRefunds), the job its refund declarations add too. Returns how many orders it
   * credited.
   *
   * A process runs one job of a store at a time. A registration during a run adds the store's
   * next job, which graphile-worker hands to another of the process's runners at once: here it
   * waits for the running one (up to RUN_WAIT_MS), and a third, finding one waiting, ends at
   * once (the waiting one reads every order committed before the third was added). Side by
   * side, each with its parallel batches, a store's jobs took under load the connections the
   * API answers with. Two processes may still each run one: their batches skip each other's
   * orders.
   */
  async creditStore(storeId: number, options: { drainMs?: number } = {}): Promise<number> {
    const current = this.storeRuns.get(storeId);
    // Another job waits already to run after the running one: it will read every order
    // committed before this job was added, this one's among them.
    if (current?.waiting) return 0;
    if (current) current.waiting = true;
    // Published at once, marked waiting until it drains: a job added meanwhile ends at once.
    const run = { running: Promise.resolve(0), waiting: current !== undefined };
    run.running = current
      ? settledWithin(current.running, RUN_WAIT_MS).then(() => {
          run.waiting = false;
          return this.drainStore(storeId, options);
        })
      : this.drainStore(storeId, options);
    this.storeRuns.set(storeId, run);
    try {
      return await run.running;
    } finally {
      if (this.storeRuns.get(storeId) === run) this.storeRuns.delete(storeId);
    }
  }

  private async drainStore(storeId: number, { drainMs = DRAIN_MS } = {}): Promise<number> {
    const handedOver: number[] = [];
    const started = performance.now();
    let total = 0;
    let timedOut = false;
    /** One batch; whether it was full (more may be waiting). */
    const batch = async (wait: boolean): Promise<boolean> => {
      let ids: number[] = [];
      try {
        const count = await withTransaction(this.pool, async (tx) => {
          if (wait) await tx.query(`SET LOCAL lock_timeout = '${HELD_ORDER_WAIT_MS}ms'`);
          const orders = await lockPendingOrders(tx, storeId, handedOver, BATCH_LIMIT, { wait });
          ids = orders.map((order) => order.id);
          if (orders.length > 0) await this.creditOrders(tx, storeId, orders);
          return orders.length;
        });
        for (const id of ids) this.remember(id);
        total += count;
        return count === BATCH_LIMIT;
      } catch (error) {
        // An order held longer than that: a new job of the store looks again.
        if (wait && (error as { code?: string }).code === "55P03") return true;
        // Nothing locked yet (the database is away): the job fails, and is retried.
        if (ids.length === 0) throw error;
        this.logger.warn(
          { storeId, orders: ids.length, err: error },
          "a batch of orders failed: each of them is processed by a job of its own",
        );
        handedOver.push(...ids);
        await enqueueOrderJobs(this.pool, ids);
        return true;
      }
    };
    const drain = async () => {
      for (;;) {
        if (performance.now() - started >= drainMs) {
          timedOut = true;
          return;
        }
        if (!(await batch(false))) return;
      }
    };
    // Every loop ends before the job does, even when one fails: the job's retry must not
    // meet batches of its first run still going.
    const ended = await Promise.allSettled(Array.from({ length: PARALLEL_BATCHES }, drain));
    const failed = ended.find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    let left = timedOut || (await batch(true));
    // Then the store's refunds (those of the orders just credited were applied with them): at
    // least one batch, however long the orders took, so that a store that keeps registering
    // still has its refunds applied.
    const refundsLeft = await this.drainRefunds(
      storeId,
      () => performance.now() - started >= drainMs,
    );
    left ||= refundsLeft;
    if (left) await enqueueStoreCredits(this.pool, { storeIds: [storeId] });
    return total;
  }

  /**
   * Applies the store's pending refunds (see pendingRefunds), in batches of up to
   * REFUND_BATCH_LIMIT, each its own transaction, until a batch finds fewer than that or `over`
   * says the job's time is up. A first batch runs alone (most jobs find few refunds, or none);
   * when it was full, PARALLEL_BATCHES run at once, as the orders' do: while one waits on
   * PostgreSQL (a refund's statements go one after the other), another computes. A batch reads
   * its refunds while no other is reading, leaving out those of the running batches and their
   * orders' others (see pendingRefunds): a store's refunds of one order are applied in turn.
   * The batches skip the refunds whose order another transaction holds; a last one waits for
   * them (up to HELD_ORDER_WAIT_MS), so that one order held long holds back its own refunds
   * only, for a new job of the store. A batch that fails hands each of its refunds to a job of
   * its own (process-refund: applied alone, with the queue's retries).
   * Returns whether refunds are left for a new job of the store.
   */
  private async drainRefunds(storeId: number, over: () => boolean): Promise<boolean> {
    const handedOver: number[] = [];
    const skipped = new Set<number>();
    /** The refunds of the batches running now. */
    const running = new Set<number>();
    let reading: Promise<unknown> = Promise.resolve();
    /** The next batch's refunds, read after the batches before have taken theirs. */
    const next = (wait: boolean) => {
      const read = reading.then(async () => {
        const refunds = await pendingRefunds(
          this.pool,
          storeId,
          wait ? handedOver : [...handedOver, ...skipped, ...running],
          REFUND_BATCH_LIMIT,
        );
        for (const refund of refunds) running.add(refund.id);
        return refunds;
      });
      reading = read.catch(() => undefined);
      return read;
    };
    /** One batch: "full" when more may be waiting, "held" when a row was held too long. */
    const batch = async (wait: boolean): Promise<"done" | "full" | "held"> => {
      const refunds = await next(wait);
      if (refunds.length === 0) return "done";
      let begun = false;
      try {
        await withTransaction(this.pool, async (tx) => {
          begun = true;
          if (wait) await tx.query(`SET LOCAL lock_timeout = '${HELD_ORDER_WAIT_MS}ms'`);
          const left = await this.applyRefunds(tx, storeId, refunds, { wait });
          for (const id of left) skipped.add(id);
        });
      } catch (error) {
        if ((error as { code?: string }).code === "55P03") return "held";
        // No transaction (no connection to be had, the database away): the job fails, and is
        // retried; the refunds are no more to blame than the others.
        if (!begun) throw error;
        const ids = refunds.map((refund) => refund.id);
        this.logger.warn(
          { storeId, refunds: ids.length, err: error },
          "a batch of refunds failed: each of them is applied by a job of its own",
        );
        handedOver.push(...ids);
        await enqueueRefundJobs(this.pool, ids);
        return "full";
      } finally {
        for (const refund of refunds) running.delete(refund.id);
      }
      return refunds.length === REFUND_BATCH_LIMIT ? "full" : "done";
    };
    /** Batches one after the other until none is full; whether refunds are left. */
    const drain = async (): Promise<boolean> => {
      for (;;) {
        const outcome = await batch(false);
        if (outcome === "held") return true;
        if (outcome === "done") return false;
        if (over()) return true;
      }
    };
    const first = await batch(false);
    if (first === "held") return true;
    if (first === "full") {
      if (over()) return true;
      // Every loop ends before the job does, even when one fails (see drainStore).
      const ended = await Promise.allSettled(Array.from({ length: PARALLEL_BATCHES }, drain));
      const failed = ended.find((result) => result.status === "rejected");
      if (failed) throw failed.reason;
      if (ended.some((result) => result.status === "fulfilled" && result.value)) return true;
      // A loop may have ended finding only the later refunds of another's running batch.
      if (await drain()) return true;
    }
    return skipped.size > 0 && (await batch(true)) !== "done";
  }

  /**
   * Applies these refunds of the store (pendingRefunds' rows), oldest first, each on its order
   * as the ones before left it. The locks are taken in the order the other jobs take them: the
   * orders (those another transaction holds are skipped unless `wait`, and their refunds
   * returned), their earning lots, their customers (in external id order), then the refunds
   * still pending. One after the other, as the refunds come, their customers and lots were
   * taken in no order, and batches deadlocked with crediting and expiry. A refund
   * of an order the store never registered is kept as `unknown_order` (applied if the order
   * comes). The customers whose refunds changed something have their clubs reviewed once, after.
   */
  private async applyRefunds(
    tx: Queryable,
    storeId: number,
    refunds: readonly { id: number; order_id: number | null }[],
    { wait }: { wait: boolean },
  ): Promise<number[]> {
    const orderIds = [
      ...new Set(refunds.flatMap((refund) => (refund.order_id === null ? [] : [refund.order_id]))),
    ];
    const orders = new Map(
      (await lockOrdersById(tx, storeId, orderIds, { wait })).map((order) => [order.id, order]),
    );
    const skipped = new Set(
      refunds.filter((refund) => refund.order_id !== null && !orders.has(refund.order_id)),
    );
    await lockOrderLots(tx, storeId, [...orders.keys()]);
    const held = await heldClubs(
      tx,
      [...orders.values()].map((order) => order.customer_id as number),
      { lock: true },
    );
    const locked = await lockPendingRefunds(
      tx,
      storeId,
      refunds.filter((refund) => !skipped.has(refund)).map((refund) => refund.id),
    );
    const orderOf = new Map(refunds.map((refund) => [refund.id, refund.order_id]));
    const changed = await this.applyInTurn(tx, storeId, locked, orders, (refund) =>
      orderOf.get(refund.id),
    );
    await reviewClubs(tx, storeId, changed, this.clock(), {
      held: held.filter((row) => changed.includes(row.id)),
    });
    return [...skipped].map((refund) => refund.id);
  }

  /**
   * Adds a crediting job for each store whose pending orders or refunds have waited longer than
   * STRANDED_AFTER_MS (see enqueueStoreCredits), after deleting the stores' jobs that will
   * never run again (deleteSpentStoreCredits). Returns how many stores.
   */
  async creditStrandedOrders(): Promise<number> {
    await deleteSpentStoreCredits(this.pool);
    const stores = await enqueueStoreCredits(this.pool, { olderThanMs: STRANDED_AFTER_MS });
    if (stores > 0)
      this.logger.warn({ stores }, "pending orders or refunds without a job: crediting jobs added");
    return stores;
  }

  /** Remembers an order as credited, forgetting the oldest past REMEMBERED_CREDITS. */
  private remember(orderId: number): void {
    this.credited.add(orderId);
    if (this.credited.size > REMEMBERED_CREDITS) {
      this.credited.delete(this.credited.values().next().value as number);
    }
  }

  /**
   * Credits an order alone, after its batch failed. If that fails too, the failure is counted:
   * other jobs stop taking the order into their batches, and its own job's retries go on.
   */
  async processOrderAlone(orderId: number): Promise<number> {
    try {
      return await this.processOrder(orderId, { batch: false });
    } catch (error) {
      await recordProcessingFailure(this.pool, orderId).catch(() => {});
      throw error;
    }
  }

  private async creditOrders(tx: Queryable, storeId: number, orders: OrderRow[]): Promise<void> {
    const customerIds = await upsertCustomers(
      tx,
      storeId,
      orders.map((order) => order.payload.customer),
    );
    // One after the other: a transaction's client runs one query at a time (pg 9 will refuse
    // a second query handed to it while the first runs).
    const rules = await activeRules(tx, storeId);
    const clubs = await listClubs(tx, storeId);
    const { pendingDays, clubs: policy } = await findProgramSettings(tx, storeId);
    const now = this.clock();
    const ruleSet = indexRules(rules);
    const ids = [...customerIds.values()];
    // Locked here (they are already, by the upsert), read once for the multipliers and the
    // review that follows the credit.
    const heldRows = clubs.length > 0 ? await heldClubs(tx, ids, { lock: true }) : [];
    const held = new Map(heldRows.map((row) => [row.id, heldOf(row)]));
    const figures =
      clubs.length > 0 ? await clubFigures(tx, policy, ids, now) : new Map<number, ClubFigures>();
    const amounts =
      clubs.length > 0 && policy.basis === "amount-spent"
        ? await orderAmounts(
            tx,
            orders.map((order) => order.id),
          )
        : new Map<number, number>();

    const start = periodStart(policy.period, now);
    const credited = orders.map((order) => {
      const customerId = customerIds.get(order.customer_external_id) as number;
      const figure = figures.get(customerId) ?? NO_FIGURES;
      // The club the customer stood in before this order: its multiplier applies to it.
      const { club } = clubStanding(
        clubs,
        policy,
        held.get(customerId) ?? heldOf(undefined),
        figure,
        now,
      );
      const result = earnOrder(
        ruleSet,
        order.payload.lines,
        club && { id: club.id, name: club.name, multiplier: club.multiplier },
      );
      // The next order of the customer in this batch stands on this one's (an order dated
      // before the period counts for nothing).
      const added =
        policy.basis === "points-earned"
          ? result.points
          : start === null || order.ordered_at >= start
            ? (amounts.get(order.id) ?? 0)
            : 0;
      const counted = policy.basis === "points-earned" ? now : order.ordered_at;
      figures.set(customerId, {
        ...figure,
        // Cents, as the database sums them: floats drift over a few additions.
        current: Math.round((figure.current + added) * 100) / 100,
        oldest:
          added > 0 && (figure.oldest === null || counted < figure.oldest)
            ? counted
            : figure.oldest,
      });
      return { order, customerId, ...result };
    });

    // A referee's first order completes their referral (the referrer's bonus follows in a job).
    await completeReferrals(
      tx,
      storeId,
      credited.flatMap(({ order, customerId }) =>
        order.payload.customer.email ? [{ customerId, email: order.payload.customer.email }] : [],
      ),
    );
    const earning = credited
      .filter((entry) => entry.points > 0)
      .map((entry) => ({
        ...entry,
        availableAt: pendingUntil(entry.order.ordered_at, pendingDays, now),
      }));
    const appended = await appendLedgerEntries(
      tx,
      earning.map((entry) => ({
        storeId,
        customerId: entry.customerId,
        kind: "earn" as const,
        points: entry.points,
        orderId: entry.order.id,
        availableAt: entry.availableAt,
      })),
      now,
    );
    await markOrdersProcessed(
      tx,
      credited.map((entry) => ({
        id: entry.order.id,
        customerId: entry.customerId,
        points: entry.points,
        snapshot: entry.snapshot,
      })),
    );

    // The reward codes the orders used leave their customers' lists of codes. Most orders
    // name none: no statement then.
    const uses = credited.flatMap(({ order, customerId }) =>
      (order.payload.discountCodes ?? []).map((code) => ({
        customerId,
        orderId: order.id,
        code,
        orderedAt: order.ordered_at,
      })),
    );
    if (uses.length > 0) await markCodesUsed(tx, uses);

    const earnings = new Map(
      earning.map((entry, index) => [
        entry.order.id,
        { balance: appended[index]?.balanceAfter as number, availableAt: entry.availableAt },
      ]),
    );
    const events: OutboxEvent[] = [];
    for (const { order, points } of credited) {
      const customer = { externalId: order.customer_external_id };
      events.push({
        type: "ORDER_REGISTERED",
        data: {
          order: eventOrder(order),
          customer,
          currency: order.currency,
          orderedAt: order.ordered_at.toISOString(),
        },
      });
      const earnt = earnings.get(order.id);
      if (points > 0 && earnt) {
        events.push({
          type: "POINTS_EARNED",
          data: {
            order: eventOrder(order),
            customer,
            points,
            balance: earnt.balance,
            ...(earnt.availableAt && { availableAt: earnt.availableAt.toISOString() }),
          },
        });
      }
    }
    await recordEvents(tx, storeId, events);
    await reviewClubs(tx, storeId, ids, now, { store: { clubs, policy }, figures, held: heldRows });

    // Credit notes that arrived before their order: applied now, oldest first.
    const waiting = await lockUnappliedRefunds(
      tx,
      storeId,
      orders.map((order) => order.external_id),
    );
    if (waiting.length > 0) {
      const byExternalId = new Map<string, OrderRow>(
        credited.map(({ order, customerId, points, snapshot }) => [
          order.external_id,
          {
            ...order,
            customer_id: customerId,
            points_earned: points,
            rule_snapshot: snapshot,
            status: "processed" as const,
          },
        ]),
      );
      await this.applyInTurn(
        tx,
        storeId,
        waiting,
        byExternalId,
        (refund) => refund.order_external_id,
      );
      await reviewClubs(
        tx,
        storeId,
        waiting.map((refund) => byExternalId.get(refund.order_external_id)?.customer_id as number),
        now,
        { store: { clubs, policy } },
      );
    }
  }

  /**
   * Applies a refund declaration alone (the job of a refund whose batch failed, or one queued
   * before refunds were applied by their store's job): see applyRefunds. If that fails, the
   * failure is counted: batches stop taking the refund, and its own job's retries go on.
   */
  async processRefund(refundId: number): Promise<void> {
    try {
      const storeId = await withTransaction(this.pool, async (tx) => {
        const refund = await findRefundToApply(tx, refundId);
        // Applied already, or its order's crediting applies it.
        if (!refund || refund.waits === "order") return undefined;
        // Its order's earlier declarations first: the job is retried after them.
        if (refund.waits === "earlier") {
          throw new Error(`refund ${refundId} waits for an earlier refund of its order`);
        }
        await this.applyRefunds(tx, refund.store_id, [refund], { wait: true });
        return refund.store_id;
      });
      // The order's later refunds waited for this one (see pendingRefunds): the store's job
      // applies them now.
      if (storeId !== undefined) await enqueueStoreCredits(this.pool, { storeIds: [storeId] });
    } catch (error) {
      await recordRefundFailure(this.pool, refundId).catch(() => {});
      throw error;
    }
  }

  /**
   * Applies refund declarations in the order given, each on its order as the ones before left
   * it (`orders`, by `orderKey`, updated as they go): deduction = points earned × cumulative
   * refunded share − points already deducted. A replay deducts nothing; a lower cumulative
   * than applied changes nothing and is logged; a refund of no order of `orders` is kept as
   * `unknown_order`. What they write goes in one statement of each kind (the lots aside: one
   * per deduction), not a few per refund. Returns the customers of the refunds applied; the
   * caller reviews their clubs after.
   */
  private async applyInTurn<K>(
    tx: Queryable,
    storeId: number,
    refunds: readonly RefundRow[],
    orders: Map<K, OrderRow>,
    orderKey: (refund: RefundRow) => K | null | undefined,
  ): Promise<number[]> {
    const marks: RefundMark[] = [];
    const entries: LedgerEntry[] = [];
    const states = new Map<number, OrderRefundState>();
    /** Each applied refund's events, the deduction's balance to come from its ledger entry. */
    const applied: { order: OrderRow; refund: RefundRow; delta: number; entry?: number }[] = [];
    const customers: number[] = [];
    for (const refund of refunds) {
      const key = orderKey(refund);
      const order = key === null || key === undefined ? undefined : orders.get(key);
      if (!order) {
        marks.push({ id: refund.id, orderId: null, outcome: "unknown_order", pointsDeducted: 0 });
        this.logger.warn(
          { storeId, order: refund.order_external_id, refundId: refund.id },
          "refund for an order unknown to the store: nothing to deduct",
        );
        continue;
      }
      const snapshot = order.rule_snapshot as EarnSnapshot;
      const { points: target, unknownLineIds } = refundTarget(
        order.points_earned ?? 0,
        snapshot,
        refund.payload,
      );
      const context = { storeId: order.store_id, order: order.external_id, refundId: refund.id };
      if (unknownLineIds.length > 0) {
        this.logger.warn(
          { ...context, unknownLineIds },
          "refund names lines the order does not have: ignored",
        );
      }
      const delta = target - order.points_deducted;
      // A partial refund declared after a full one or a cancellation declares less than
      // applied, even when no points move (an order that earned none).
      const regresses =
        refund.status === "partially_refunded" &&
        (order.refund_status === "refunded" || order.refund_status === "cancelled");
      if (delta < 0 || regresses) {
        marks.push({
          id: refund.id,
          orderId: order.id,
          outcome: "lower_than_applied",
          pointsDeducted: 0,
        });
        this.logger.warn(
          { ...context, declared: target, alreadyDeducted: order.points_deducted },
          "refund declares less than already applied (amounts are cumulative): nothing changed",
        );
        continue;
      }
      let entry: number | undefined;
      if (delta > 0) {
        entry = entries.length;
        entries.push({
          storeId: order.store_id,
          customerId: order.customer_id as number,
          kind: "refund_deduction",
          points: -delta,
          orderId: order.id,
          refundId: refund.id,
        });
      }
      // The amount refunded may grow with no point to take back (clubs by amount spent count
      // it); it is never lowered, so the order keeps the most any declaration refunded.
      const amount = refundedAmount(snapshot, refund.payload);
      const before = states.get(order.id)?.amountRefunded;
      states.set(order.id, {
        orderId: order.id,
        pointsDeducted: target,
        refundStatus: refund.status,
        amountRefunded:
          before === "all" || amount === "all" ? "all" : Math.max(before ?? 0, amount),
      });
      if (delta > 0 || refund.status !== order.refund_status) {
        applied.push({ order, refund, delta, ...(entry !== undefined && { entry }) });
      }
      marks.push({
        id: refund.id,
        orderId: order.id,
        outcome: delta > 0 ? "deducted" : "no_change",
        pointsDeducted: delta,
      });
      orders.set(key as K, { ...order, points_deducted: target, refund_status: refund.status });
      customers.push(order.customer_id as number);
    }
    const appended = await appendLedgerEntries(tx, entries, this.clock());
    await updateOrdersRefundState(tx, [...states.values()]);
    const events: OutboxEvent[] = [];
    for (const { order, refund, delta, entry } of applied) {
      const customer = { externalId: order.customer_external_id };
      events.push({
        type: "ORDER_REFUNDED",
        data: {
          order: eventOrder(order),
          customer,
          refundStatus: refund.status,
          creditNoteId: refund.credit_note_id,
        },
      });
      const deducted = entry === undefined ? undefined : appended[entry];
      if (deducted) {
        events.push({
          type: "POINTS_DEDUCTED",
          data: {
            order: eventOrder(order),
            customer,
            points: delta,
            balance: deducted.balanceAfter,
            ...(deducted.pendingPoints && { pendingPoints: -deducted.pendingPoints }),
          },
        });
      }
    }
    await recordEvents(tx, storeId, events);
    await markRefundsProcessed(tx, marks);
    return customers;
  }
}
