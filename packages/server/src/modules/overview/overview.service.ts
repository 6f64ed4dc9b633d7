import {
  programOverviewQuerySchema,
  type ProgramOverview,
  type ProgramOverviewQuery,
} from "@loyalty/shared-types";
import type pg from "pg";
import type { Clock } from "../../clock.js";
import { parseRequest } from "../../http/validate.js";
import {
  activeMembers,
  bestFixedAmountReward,
  customerTotals,
  foldOverviewDeltas,
  periodActivity,
  topRewards,
  type OverviewPeriod,
} from "./overview.repository.js";

const DAY_MS = 86_400_000;
/** The default period: the 30 days ending today. */
const DEFAULT_DAYS = 30;
/** Members are active with a ledger entry in this many days up to now. */
const ACTIVE_DAYS = 30;
const TOP_REWARDS = 5;

function isoDate(instant: number): string {
  return new Date(instant).toISOString().slice(0, 10);
}

/**
 * The period asked, its missing ends filled in (`to` today, `from` 29 days before `to`). The
 * query schema checks the two ends only when both are given: the filled-in period goes through
 * it again, so that `from` alone, after today or over a year back, is refused as if `to` had
 * been sent.
 */
function overviewPeriod(query: ProgramOverviewQuery, now: Date): OverviewPeriod {
  const to = query.to ?? isoDate(now.getTime());
  const from = query.from ?? isoDate(Date.parse(to) - (DEFAULT_DAYS - 1) * DAY_MS);
  parseRequest(programOverviewQuerySchema, { from, to }, "query");
  return { from, to, start: new Date(Date.parse(from)), end: new Date(Date.parse(to) + DAY_MS) };
}

/** Redeemed over what came in (earned and bonuses), to four decimals; none without income. */
function redemptionRate(points: ProgramOverview["points"]): number | null {
  const income = points.earned + points.bonuses;
  return income === 0 ? null : Math.round((points.redeemed / income) * 10_000) / 10_000;
}

/**
 * Back-office: the programme's dashboard. Every figure is an aggregate computed by PostgreSQL
 * from sums kept as the data is written (migration `20261129100000000_overview-sums`), in five
 * statements on three connections side by side: the period's ledger, the active members, and
 * the small reads one after the other. Each reads a few hundred rows whatever the store's size
 * (a store of 1M customers and 10M entries read them all, 815 ms at p95). The statements read
 * at slightly different instants: a dashboard may show an order credited in one figure and not
 * yet in another.
 */
export class OverviewService {
  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
  ) {}

  async overview(
    store: { id: number; currency: string },
    query: ProgramOverviewQuery,
  ): Promise<ProgramOverview> {
    const now = this.clock();
    const period = overviewPeriod(query, now);
    const activeSince = new Date(now.getTime() - ACTIVE_DAYS * DAY_MS);
    const smallReads = async () => ({
      customers: await customerTotals(this.pool, store.id),
      reward: await bestFixedAmountReward(this.pool, store.id, store.currency),
      top: await topRewards(this.pool, store.id, period, TOP_REWARDS),
    });
    const [activity, active, { customers, reward, top }] = await Promise.all([
      periodActivity(this.pool, store.id, period),
      activeMembers(this.pool, store.id, activeSince, now),
      smallReads(),
    ]);
    return {
      period: { from: period.from, to: period.to },
      currency: store.currency,
      members: customers.members,
      activeMembers: active,
      points: activity.flows,
      redemptionRate: redemptionRate(activity.flows),
      outstandingPoints: customers.outstandingPoints,
      // In whole hundredths until the end: a float's cents would drift on large balances.
      liability: reward
        ? {
            amount:
              Math.round((customers.outstandingPoints * reward.valueCents) / reward.triggerValue) /
              100,
            valuePerPoint: reward.valueCents / 100 / reward.triggerValue,
            rewardId: reward.rewardId,
          }
        : null,
      daily: activity.daily,
      topRewards: top,
    };
  }

  /**
   * Moves the deltas the ledger's and the customers' triggers appended into the overview's
   * sums (the fold-overview-sums job, every minute): exact without it, the overview reads
   * fewer rows with it. Returns the deltas folded.
   */
  async foldDeltas(): Promise<number> {
    return foldOverviewDeltas(this.pool);
  }
}
