import {
  FIXED_ACTIVITY_LIMITS,
  type ActivityOutcome,
  type BuiltInActivityKind,
  type RecordActivityRequest,
  type RecordActivityResponse,
} from "@loyalty/shared-types";
import type pg from "pg";
import type { AuthenticatedStore } from "../../auth/auth.types.js";
import type { Clock } from "../../clock.js";
import { withTransaction } from "../../db/pool.js";
import { recordEvents } from "../events/events.repository.js";
import { appendLedgerEntries } from "../ledger/ledger.repository.js";
import { AppError } from "../../errors.js";
import { reviewClubs } from "../points/club-reviews.js";
import { findProgramSettings } from "../program/program.repository.js";
import {
  creditsInPeriod,
  findActivity,
  insertActivity,
  lockActivityCustomer,
  type ActivityRow,
} from "./activities.repository.js";

function answer(row: ActivityRow, balance: number): RecordActivityResponse {
  return {
    activityId: row.activityId,
    kind: row.kind,
    outcome: row.outcome,
    points: row.points,
    balance,
    recordedAt: row.recordedAt.toISOString(),
  };
}

/**
 * An activity id names one activity of one customer: sent for another, it is refused (and the
 * transaction, which created or locked that customer, is rolled back).
 */
function sameCustomer(row: ActivityRow, activity: RecordActivityRequest): ActivityRow {
  if (row.customerExternalId === activity.customer.externalId) return row;
  throw new AppError(
    "validation-failed",
    "This activityId was already sent for another customer of the store.",
    [
      {
        location: "body",
        pointer: "/activityId",
        message: "was already sent for another customer",
        code: "custom",
      },
    ],
  );
}

/** POST /api/activity: ways to earn beyond orders. */
export class ActivitiesService {
  constructor(
    private readonly pool: pg.Pool,
    /** The period a limit counts in (tests move it). */
    private readonly clock: Clock,
  ) {}

  /**
   * Credits the activity as the store's rule for its kind says, at most its limit per period,
   * exactly once per `activityId` however often and concurrently it is sent: the customer's row
   * is locked first, so the second sending waits, then finds the first's answer.
   */
  record(
    store: AuthenticatedStore,
    activity: RecordActivityRequest,
  ): Promise<RecordActivityResponse> {
    return withTransaction(this.pool, async (tx) => {
      const { id: customerId, balance } = await lockActivityCustomer(
        tx,
        store.id,
        activity.customer,
      );
      const known = await findActivity(tx, store.id, activity.activityId);
      if (known) return answer(sameCustomer(known, activity), balance);

      const now = this.clock();
      const { activities } = await findProgramSettings(tx, store.id);
      const rule = activities.find((candidate) => candidate.kind === activity.kind);
      const fixed = Object.hasOwn(FIXED_ACTIVITY_LIMITS, activity.kind)
        ? FIXED_ACTIVITY_LIMITS[activity.kind as BuiltInActivityKind]
        : undefined;
      const limit = fixed ?? rule?.limit ?? null;
      let outcome: ActivityOutcome = rule ? "credited" : "not-rewarded";
      if (
        rule &&
        limit &&
        (await creditsInPeriod(tx, customerId, activity.kind, limit.period, now)) >= limit.count
      ) {
        outcome = "limit-reached";
      }
      const points = outcome === "credited" && rule ? rule.points : 0;
      const row = await insertActivity(tx, {
        storeId: store.id,
        customerId,
        activityId: activity.activityId,
        kind: activity.kind,
        label: rule?.label ?? "",
        outcome,
        points,
        occurredAt: activity.occurredAt ? new Date(activity.occurredAt) : null,
        recordedAt: now,
      });
      // Sent meanwhile for another customer of the store: the first stands.
      if (!row) {
        const first = (await findActivity(tx, store.id, activity.activityId)) as ActivityRow;
        return answer(sameCustomer(first, activity), balance);
      }
      if (points === 0) return answer(row, balance);
      const [credited] = await appendLedgerEntries(
        tx,
        [
          {
            storeId: store.id,
            customerId,
            kind: "activity_bonus",
            points,
            activityId: row.id,
          },
        ],
        now,
      );
      const after = credited?.balanceAfter as number;
      await recordEvents(tx, store.id, [
        {
          type: "POINTS_EARNED",
          data: {
            order: null,
            activity: { id: activity.activityId, kind: activity.kind },
            customer: { externalId: activity.customer.externalId },
            points,
            balance: after,
          },
        },
      ]);
      await reviewClubs(tx, store.id, [customerId], now);
      return answer(row, after);
    });
  }
}
