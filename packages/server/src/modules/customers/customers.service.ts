import {
  MAX_EXTERNAL_ID,
  usesLegacyOrderRef,
  type ApiRevision,
  type ClubSummary,
  type CustomerHistoryResponse,
} from "@loyalty/shared-types";
import type pg from "pg";
import { decodeCursor, pageFetchSize, paged, type PageRequest } from "../../http/paging.js";
import type { Clock } from "../../clock.js";
import { clubWindowStart, pointsEarnedSince } from "../ledger/ledger.repository.js";
import { clubStanding, type Club } from "../points/clubs.js";
import { listClubs } from "../points/points.repository.js";
import type { StorefrontCache, StorefrontSection } from "../storefront/storefront.cache.js";
import { customerHistoryPage, type HistoryTransactionRow } from "./customers.repository.js";

/**
 * From 2026-06-18 orders are named by number. An identifier stored as a plainly written whole
 * number is one (2026-06-18 registrations store `String(externalId)`, and a 2026-01-01
 * `externalRef` of "1001" is the same order as externalId 1001); any other 2026-01-01
 * `externalRef` ("A-1001", "007") has no numeric form and stays text.
 */
function orderExternalId(stored: string): number | string {
  const id = Number(stored);
  return /^(0|[1-9]\d*)$/.test(stored) && id <= MAX_EXTERNAL_ID ? id : stored;
}

function clubSummary({ id, name, threshold, multiplier }: Club): ClubSummary {
  return { id, name, threshold, multiplier };
}

function transactionFields(row: HistoryTransactionRow) {
  return {
    id: row.id,
    kind: row.kind,
    points: row.points,
    balanceAfter: row.balance_after,
    rewardId: row.reward_id,
    voucherCode: row.voucher_code,
    referralId: row.referral_id,
    note: row.note,
    createdAt: row.created_at.toISOString(),
  };
}

/** GET /point/user-history/{externalId}: what a customer's account page shows. */
export class CustomersService {
  /** A store's clubs change rarely and every account page needs them: kept with its rules. */
  private readonly clubs: StorefrontSection<Club[]>;

  constructor(
    private readonly pool: pg.Pool,
    /** Clubs are measured over the 12 months before now. */
    private readonly clock: Clock,
    private readonly storefront: StorefrontCache,
  ) {
    this.clubs = {
      load: async (store) => {
        const clubs = await listClubs(pool, store.id);
        return { value: clubs, version: JSON.stringify(clubs) };
      },
    };
  }

  /**
   * The customer's balance, one page of transactions (newest first) and club standing. A
   * customer the store has never seen stands at 0 points with no transactions: the storefront
   * may show any signed-in shopper their account before a first order, and a GET never writes.
   */
  async history(
    store: { id: number; domain: string },
    externalId: number,
    page: PageRequest,
    revision: ApiRevision,
  ): Promise<CustomerHistoryResponse> {
    const windowStart = clubWindowStart(this.clock());
    const beforeId = page.cursor === undefined ? null : decodeCursor(page.cursor);
    const [cachedClubs, found] = await Promise.all([
      this.storefront.section(store.domain, this.clubs),
      customerHistoryPage(this.pool, {
        storeId: store.id,
        externalId,
        beforeId: beforeId ?? null,
        // A cursor we did not issue names no place in the list. Reading it as the end (rather
        // than starting over) cannot keep a client paging forever, and this operation has no
        // error to answer with: the page is empty, the balance and club are still given.
        take: beforeId === undefined ? 0 : pageFetchSize(page.limit),
      }),
    ]);
    const earned = found
      ? ((await pointsEarnedSince(this.pool, [found.customer.id], windowStart)).get(
          found.customer.id,
        ) ?? 0)
      : 0;
    const { club, next } = clubStanding(cachedClubs?.value ?? [], earned);
    const { items: rows, nextCursor } = paged(found?.transactions ?? [], page.limit);
    const head = {
      externalId,
      balance: found?.customer.balance ?? 0,
      earnedLast12Months: earned,
      club: club && clubSummary(club),
      nextClub: next && { ...clubSummary(next), pointsToReach: next.pointsToReach },
      nextCursor,
    };
    return usesLegacyOrderRef(revision)
      ? {
          ...head,
          transactions: rows.map((row) => ({
            ...transactionFields(row),
            order: row.order_external_id === null ? null : { externalRef: row.order_external_id },
          })),
        }
      : {
          ...head,
          transactions: rows.map((row) => ({
            ...transactionFields(row),
            order:
              row.order_external_id === null
                ? null
                : {
                    externalId: orderExternalId(row.order_external_id),
                    externalReference: row.order_external_reference,
                  },
          })),
        };
  }
}
