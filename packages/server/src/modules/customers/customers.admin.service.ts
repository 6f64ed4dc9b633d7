import { externalIdTextSchema, type PointAdjustmentRequest } from "@loyalty/shared-types";
import type pg from "pg";
import { withTransaction } from "../../db/pool.js";
import { AppError } from "../../errors.js";
import { pageFetchSize, paged, pageStart, type PageRequest } from "../../http/paging.js";
import type { Clock } from "../../clock.js";
import { appendLedgerEntries } from "../ledger/ledger.repository.js";
import {
  clubStandings,
  earnedLast12Months,
  storeClubs,
  type StoreClubs,
} from "../points/club-reviews.js";
import { periodStart, type Club } from "../points/clubs.js";
import {
  customerClaims,
  customerOrders,
  eraseCustomer,
  findAdminCustomer,
  lockAdminCustomer,
  readOneSnapshot,
  referralOfReferee,
  referralsMadeBy,
  searchCustomers,
  type AdminCustomerRow,
  type CustomerFilter,
  type CustomerClaimRow,
  type CustomerOrderRow,
  type ReferralMadeRow,
  type ReferredByRow,
} from "./customers.admin.repository.js";
import { customerHistoryPage, type HistoryTransactionRow } from "./customers.repository.js";
import type { ClubQualificationFigures } from "./customers.service.js";

function unknownCustomer(externalId: number): AppError {
  return new AppError("not-found", `The store has no customer with the externalId ${externalId}.`);
}

/**
 * What a search looks for: the start of an email, in any case; digits are also a customer id
 * (exact), and an address may start with them (`1234shop@…`). Digits beyond the range of ids
 * name no customer, only addresses.
 */
function customerFilter(query: string | undefined): CustomerFilter {
  if (query === undefined) return { by: "all" };
  const externalId = externalIdTextSchema.safeParse(query);
  return externalId.success
    ? { by: "externalIdOrEmailPrefix", externalId: externalId.data, prefix: query }
    : { by: "emailPrefix", prefix: query };
}

/** A customer with their standing: points earned over the rolling 12 months, and the club. */
export interface CustomerSummary {
  customer: AdminCustomerRow;
  earnedLast12Months: number;
  club: Club | null;
  clubQualification: ClubQualificationFigures;
}

export interface CustomerAdjustment {
  transaction: HistoryTransactionRow;
  balance: number;
}

export interface CustomerRecord {
  exportedAt: Date;
  customer: AdminCustomerRow;
  orders: CustomerOrderRow[];
  /** Newest first. */
  transactions: HistoryTransactionRow[];
  claims: CustomerClaimRow[];
  referralsMade: ReferralMadeRow[];
  referredBy: ReferredByRow | undefined;
}

/**
 * Back-office: a store's customers. Customers are created by their orders and referrals only;
 * every operation here answers not-found for one the store has never met.
 */
export class CustomersAdminService {
  constructor(
    private readonly pool: pg.Pool,
    /** Clubs are measured over the 12 months before now. */
    private readonly clock: Clock,
  ) {}

  /**
   * A page of the store's customers matching the query (see customerFilter), newest first, each
   * with their club standing computed as the customer's history computes it: the page's points
   * of the last 12 months in one statement, the store's clubs in another.
   */
  async search(
    storeId: number,
    query: string | undefined,
    page: PageRequest,
  ): Promise<{ customers: CustomerSummary[]; nextCursor: string | null }> {
    const beforeId = pageStart(page.cursor);
    const [fetched, clubs] = await Promise.all([
      searchCustomers(this.pool, storeId, customerFilter(query), {
        beforeId,
        take: pageFetchSize(page.limit),
      }),
      storeClubs(this.pool, storeId, true),
    ]);
    const { items, nextCursor } = paged(fetched, page.limit);
    return { customers: await this.#standings(items, clubs), nextCursor };
  }

  /** One customer with their club standing, as the search reports it. */
  async summary(storeId: number, externalId: number): Promise<CustomerSummary> {
    const [customer, clubs] = await Promise.all([
      this.get(storeId, externalId),
      storeClubs(this.pool, storeId, true),
    ]);
    const [summary] = await this.#standings([customer], clubs);
    return summary!;
  }

  /** The customers' figures and clubs, in a statement or two whatever their number. */
  async #standings(
    customers: readonly AdminCustomerRow[],
    store: StoreClubs,
  ): Promise<CustomerSummary[]> {
    const now = this.clock();
    const ids = customers.map((customer) => customer.id);
    const standings = await clubStandings(this.pool, store, ids, now);
    const figured = new Map([...standings].map(([id, { figures }]) => [id, figures]));
    const earned = await earnedLast12Months(this.pool, store.policy, figured, ids, now);
    return customers.map((customer) => {
      const found = standings.get(customer.id);
      const figure = found?.figures.current ?? 0;
      return {
        customer,
        earnedLast12Months: earned.get(customer.id) ?? 0,
        club: found?.standing.club ?? null,
        clubQualification: {
          policy: store.policy,
          figure,
          periodStart: periodStart(store.policy.period, now),
          keptUntil: found?.standing.keptUntil ?? null,
        },
      };
    });
  }

  /** A page of the customer's ledger, newest first; not-found for a customer the store never met. */
  async transactions(
    storeId: number,
    externalId: number,
    page: PageRequest,
  ): Promise<{ transactions: HistoryTransactionRow[]; nextCursor: string | null }> {
    const beforeId = pageStart(page.cursor);
    const found = await customerHistoryPage(this.pool, {
      storeId,
      externalId,
      beforeId,
      take: pageFetchSize(page.limit),
    });
    if (!found) throw unknownCustomer(externalId);
    const { items, nextCursor } = paged(found.transactions, page.limit);
    return { transactions: items, nextCursor };
  }

  async get(storeId: number, externalId: number): Promise<AdminCustomerRow> {
    const customer = await findAdminCustomer(this.pool, storeId, externalId);
    if (!customer) throw unknownCustomer(externalId);
    return customer;
  }

  /**
   * Credits or debits points by hand: a manual_adjustment in the ledger, the reason as its
   * note. A debit may not take what the customer can spend (balance less the points claims
   * hold and the points still pending) below zero; it is judged on the locked row, so that concurrent adjustments and
   * claims cannot overdraw together.
   */
  adjust(
    storeId: number,
    externalId: number,
    adjustment: PointAdjustmentRequest,
  ): Promise<CustomerAdjustment> {
    return withTransaction(this.pool, async (tx) => {
      const customer = await lockAdminCustomer(tx, storeId, externalId);
      if (!customer) throw unknownCustomer(externalId);
      const available = Math.max(
        0,
        customer.balance - customer.reservedPoints - customer.pendingPoints,
      );
      if (adjustment.points < 0 && -adjustment.points > available) {
        throw new AppError(
          "validation-failed",
          `Cannot debit ${-adjustment.points} points: ${available} points are available.`,
          [
            {
              location: "body",
              pointer: "/points",
              message: `is more than the ${available} points available`,
              code: "insufficient_points",
            },
          ],
        );
      }
      const [appended] = await appendLedgerEntries(
        tx,
        [
          {
            storeId,
            customerId: customer.id,
            kind: "manual_adjustment",
            points: adjustment.points,
            note: adjustment.reason,
          },
        ],
        this.clock(),
      );
      // The customer's row is locked: their newest transaction is the one just written.
      const page = await customerHistoryPage(tx, { storeId, externalId, beforeId: null, take: 1 });
      return {
        transaction: page?.transactions[0] as HistoryTransactionRow,
        balance: appended?.balanceAfter as number,
      };
    });
  }

  /** Everything held about the customer (GDPR access and portability), as of one instant. */
  export(storeId: number, externalId: number): Promise<CustomerRecord> {
    return withTransaction(this.pool, async (tx) => {
      await readOneSnapshot(tx);
      const customer = await findAdminCustomer(tx, storeId, externalId);
      if (!customer) throw unknownCustomer(externalId);
      // One after the other: a transaction's client runs one query at a time.
      const orders = await customerOrders(tx, storeId, externalId);
      const history = await customerHistoryPage(tx, {
        storeId,
        externalId,
        beforeId: null,
        take: null,
      });
      const claims = await customerClaims(tx, customer.id);
      const referralsMade = await referralsMadeBy(tx, customer.id);
      const referredBy = await referralOfReferee(tx, { storeId, ...customer });
      return {
        exportedAt: new Date(),
        customer,
        orders,
        transactions: history?.transactions ?? [],
        claims,
        referralsMade,
        referredBy,
      };
    });
  }

  /**
   * Erases the customer's personal data (GDPR), keeping the ledger and its sums: see
   * eraseCustomer for what goes and what stays. Erasing again changes nothing visible and
   * answers the first erasure's time.
   */
  erase(storeId: number, externalId: number): Promise<AdminCustomerRow> {
    return withTransaction(this.pool, async (tx) => {
      const erased = await eraseCustomer(tx, storeId, externalId);
      if (!erased) throw unknownCustomer(externalId);
      return erased;
    });
  }
}
