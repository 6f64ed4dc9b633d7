import {
  MAX_CUSTOMER_CODES,
  type ClaimRefusal,
  type ClaimRewardResponse,
  type Voucher,
  type RewardListResponse,
} from "@loyalty/shared-types";
import { countClaim } from "../../metrics/metrics.js";
import type pg from "pg";
import type { Clock } from "../../clock.js";
import type { Logger } from "pino";
import type { AuthenticatedStore } from "../../auth/auth.types.js";
import { Batcher } from "../../db/batcher.js";
import { withTransaction, type Queryable } from "../../db/pool.js";
import { AppError } from "../../errors.js";
import { newDiscountCode } from "../platforms/discount-codes.js";
import { PlatformError } from "../platforms/platform.types.js";
import { platformFailure, type PlatformsService } from "../platforms/platforms.service.js";
import type {
  CachedSection,
  MaybePromise,
  StorefrontCache,
  StorefrontSection,
} from "../storefront/storefront.cache.js";
import {
  confirmClaims,
  findStaleClaims,
  listObtainableRewards,
  listUsableCodes,
  postponeClaim,
  releaseClaim,
  reserveClaims,
  type ClaimRequest,
  type ReserveAttempt,
  type UsableCode,
} from "./rewards.repository.js";

/** How long the reconciliation waits for a platform to say whether it made a claim's code. */
const GIVE_UP_AFTER_MS = 24 * 3600 * 1000;

/** What a claim came to: the code, or the refusal the spec answers with 404 `code: null`. */
export type ClaimOutcome = { claim: ClaimRewardResponse } | { refusal: ClaimRefusal };

/** A claim whose points are held, waiting for the platform's code. */
interface Reservation {
  claimId: number;
  code: string;
  points: number;
  rewardId: number;
  rewardName: string;
  voucher: Voucher;
  expiresAt: Date | null;
  customer: { externalId: number; email: string | null };
}

/**
 * The reward catalogue, claims and the codes they gave: GET /reward/list, POST
 * /reward/claim/{externalId} and GET /reward/codes/{externalId}.
 *
 * A claim holds the reward's cost on the customer's points (the rules are reserveClaims', in
 * one statement), asks the platform for a single-use code, then turns the hold into a ledger
 * debit, or releases it when the platform fails. A process that dies in between leaves a
 * reserved claim, which `reconcileStaleClaims` settles: confirmed when the platform has the
 * code, released when it has not.
 */
export class RewardsService {
  /** The store's obtainable rewards, as the JSON body the list answers with. */
  private readonly catalogue: StorefrontSection<Buffer>;
  /**
   * Reservations and confirmations are written in groups, as registrations are: under load one
   * statement (and one commit) serves the claims of many requests, each answered once its own
   * is committed (a transaction per claim measured far costlier for the database). One group
   * of each at a time: groups lock in a fixed order, so two could overlap safely, but one at a
   * time measured faster here.
   */
  private readonly reservations: Batcher<ClaimRequest, ReserveAttempt>;
  private readonly confirmations: Batcher<number, number | undefined>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly storefront: StorefrontCache,
    private readonly platforms: PlatformsService,
    private readonly logger: Logger,
    /** Age after which a reserved claim's request is presumed dead (CLAIM_RECONCILE_AFTER_MS). */
    private readonly reconcileAfterMs: number,
    /** When a claim spends points: the customer's last activity (inactivity expiry). */
    private readonly clock: Clock,
  ) {
    this.reservations = new Batcher((claims) => reserveInTurns(pool, claims), {
      maxBatch: 100,
      maxInFlight: 1,
    });
    this.confirmations = new Batcher((claimIds) => confirmClaims(pool, claimIds, this.clock()), {
      maxBatch: 100,
      maxInFlight: 1,
    });
    this.catalogue = {
      load: async (store) => {
        const rewards: RewardListResponse = await listObtainableRewards(pool, store.id);
        const json = JSON.stringify(rewards);
        return { value: Buffer.from(json), version: json };
      },
    };
  }

  /** The list's JSON body; undefined when no store has the domain. Synchronous when cached. */
  list(domain: string): MaybePromise<CachedSection<Buffer> | undefined> {
    return this.storefront.section(domain, this.catalogue);
  }

  /**
   * The codes the customer can still use now, newest first (the storefront's "my codes"). A
   * customer the store has never seen has none, as the history gives them 0 points: a GET never
   * writes, and this operation has no not-found to answer.
   */
  async codes(store: AuthenticatedStore, externalId: number): Promise<UsableCode[]> {
    return listUsableCodes(this.pool, {
      storeId: store.id,
      externalId,
      now: this.clock(),
      limit: MAX_CUSTOMER_CODES,
    });
  }

  async claim(
    store: AuthenticatedStore,
    externalId: number,
    rewardId: number,
  ): Promise<ClaimOutcome> {
    const reserved = await this.reserve(store, externalId, rewardId);
    if ("refusal" in reserved) return reserved;
    countClaim("reserved", "request");
    const context = { storeId: store.id, claimId: reserved.claimId, rewardId };
    try {
      const platform = await this.platforms.adapterFor(store);
      await platform.createDiscountCode({
        code: reserved.code,
        title: reserved.rewardName,
        terms: reserved.voucher,
        customer: reserved.customer,
        startsAt: new Date(),
        expiresAt: reserved.expiresAt,
      });
    } catch (error) {
      // The points go back; should this fail too, the reconciliation job gives them back.
      const reason = error instanceof PlatformError ? error.reason : "internal-server-error";
      await this.release(reserved.claimId, reason).then(
        (released) => {
          if (released) countClaim("released", "request");
        },
        (releaseError: unknown) =>
          this.logger.error(
            { ...context, err: releaseError },
            "claim not released: the reconciliation job will settle it",
          ),
      );
      if (error instanceof PlatformError) throw platformFailure(error, this.logger, context);
      throw error;
    }
    const balance = await this.confirm(reserved.claimId);
    // Only a reconciliation could have settled it first, and it waits far longer than any
    // request lives: should it happen all the same, the log says which claim to look at.
    if (balance === undefined) throw new Error(`claim ${reserved.claimId} was settled meanwhile`);
    countClaim("confirmed", "request");
    return {
      claim: {
        code: reserved.code,
        rewardId: reserved.rewardId,
        pointsSpent: reserved.points,
        balance,
        expiresAt: reserved.expiresAt?.toISOString() ?? null,
        voucher: reserved.voucher,
      },
    };
  }

  /**
   * Settles the claims whose request died between the reservation and the platform's answer.
   * The platform says whether it made the code: if so the customer spent the points (the code
   * is in their history), if not they get them back. A platform that does not answer leaves
   * the claim for a later run; after a day the points are given back all the same: a
   * customer's points are not held for a platform that may never come back.
   */
  async reconcileStaleClaims(
    olderThanMs = this.reconcileAfterMs,
  ): Promise<{ confirmed: number; released: number }> {
    const outcome = { confirmed: 0, released: 0 };
    for (const stale of await findStaleClaims(this.pool, olderThanMs, 100)) {
      const context = { storeId: stale.storeId, claimId: stale.id };
      let exists: boolean;
      try {
        const platform = await this.platforms.adapterFor({
          id: stale.storeId,
          domain: stale.storeDomain,
        });
        exists = await platform.discountCodeExists(stale.code);
      } catch (error) {
        if (Date.now() - stale.createdAt.getTime() < GIVE_UP_AFTER_MS) {
          this.logger.warn({ ...context, err: error }, "stale claim left for a later run");
          await postponeClaim(this.pool, stale.id);
          continue;
        }
        this.logger.error(
          { ...context, err: error },
          "stale claim released: its platform has not said for a day whether it made the code",
        );
        exists = false;
      }
      if (exists) {
        if ((await this.confirm(stale.id)) !== undefined) outcome.confirmed += 1;
      } else if (await this.release(stale.id, "interrupted before the platform made the code")) {
        outcome.released += 1;
      }
    }
    if (outcome.confirmed > 0) countClaim("confirmed", "reconciler", outcome.confirmed);
    if (outcome.released > 0) countClaim("released", "reconciler", outcome.released);
    if (outcome.confirmed + outcome.released > 0) {
      this.logger.warn(outcome, "settled claims interrupted between reservation and confirmation");
    }
    return outcome;
  }

  /**
   * Holds the reward's cost on the customer's points, or says why the claim is refused. An
   * unknown customer or reward is an error of the request, not a refusal.
   */
  private async reserve(
    store: AuthenticatedStore,
    externalId: number,
    rewardId: number,
  ): Promise<Reservation | { refusal: ClaimRefusal }> {
    const code = newDiscountCode();
    const attempt = await this.reservations.write({
      storeId: store.id,
      externalId,
      rewardId,
      code,
    });
    switch (attempt.outcome) {
      case "reserved": {
        const { claim } = attempt;
        return {
          claimId: claim.id,
          code,
          points: claim.reward.triggerValue,
          rewardId: claim.reward.id,
          rewardName: claim.reward.name,
          voucher: claim.reward.voucher,
          expiresAt: claim.expiresAt,
          customer: { externalId, email: claim.customerEmail },
        };
      }
      case "unknown-customer":
        throw new AppError("not-found", "The store has no customer with this externalId.");
      case "unknown-reward":
        throw new AppError("validation-failed", "The store has no reward with this rewardId.", [
          {
            location: "body",
            pointer: "/rewardId",
            message: "the store has no reward with this id",
            code: "not_found",
          },
        ]);
      default:
        return { refusal: { code: null, reason: attempt.outcome } };
    }
  }

  /** Turns the hold into the ledger's debit; the balance after, or undefined if settled already. */
  private confirm(claimId: number): Promise<number | undefined> {
    return this.confirmations.write(claimId);
  }

  /** Gives the held points back. False when the claim had already been settled. */
  private release(claimId: number, reason: string): Promise<boolean> {
    return releaseClaim(this.pool, claimId, reason);
  }
}

/**
 * Reserves a group of claims, a customer's claims in turns: one statement holds one claim per
 * customer, so a customer claiming twice at once has the second judged on what the first left.
 * Several turns share one transaction: should one fail, none is kept, and the Batcher's retry
 * of each claim alone starts from nothing held. A single turn is one statement, atomic alone.
 */
function reserveInTurns(pool: pg.Pool, claims: readonly ClaimRequest[]): Promise<ReserveAttempt[]> {
  const turns: { claim: ClaimRequest; index: number }[][] = [];
  const turnOfCustomer = new Map<string, number>();
  claims.forEach((claim, index) => {
    const customer = `${claim.storeId}:${claim.externalId}`;
    const turn = turnOfCustomer.get(customer) ?? 0;
    turnOfCustomer.set(customer, turn + 1);
    (turns[turn] ??= []).push({ claim, index });
  });
  const run = async (db: Queryable) => {
    const attempts = new Array<ReserveAttempt>(claims.length);
    for (const turn of turns) {
      const results = await reserveClaims(
        db,
        turn.map((entry) => entry.claim),
        claims,
      );
      turn.forEach((entry, position) => {
        attempts[entry.index] = results[position] as ReserveAttempt;
      });
    }
    return attempts;
  };
  return turns.length === 1 ? run(pool) : withTransaction(pool, run);
}
