import type { PointAdjustmentRequest } from "@loyalty/shared-types";
import type pg from "pg";
import { withTransaction } from "../../db/pool.js";
import { AppError } from "../../http/app-error.js";
import { appendLedgerEntries } from "../ledger/ledger.repository.js";
import {
  customerClaims,
  customerOrders,
  eraseCustomer,
  findAdminCustomer,
  lockAdminCustomer,
  readOneSnapshot,
  referralOfReferee,
  referralsMadeBy,
  type AdminCustomerRow,
  type CustomerClaimRow,
  type CustomerOrderRow,
  type ReferralMadeRow,
  type ReferredByRow,
} from "./customers.admin.repository.js";
import { customerHistoryPage, type HistoryTransactionRow } from "./customers.repository.js";

function unknownCustomer(externalId: number): AppError {
  return new AppError("not-found", `The store has no customer with the externalId ${externalId}.`);
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
  constructor(private readonly pool: pg.Pool) {}

  async get(storeId: number, externalId: number): Promise<AdminCustomerRow> {
    const customer = await findAdminCustomer(this.pool, storeId, externalId);
    if (!customer) throw unknownCustomer(externalId);
    return customer;
  }

  /**
   * Credits or debits points by hand: a manual_adjustment in the ledger, the reason as its
   * note. A debit may not take what the customer can spend (balance less the points claims
   * hold) below zero; it is judged on the locked row, so that concurrent adjustments and
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
      const available = Math.max(0, customer.balance - customer.reservedPoints);
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
      const [balance] = await appendLedgerEntries(tx, [
        {
          storeId,
          customerId: customer.id,
          kind: "manual_adjustment",
          points: adjustment.points,
          note: adjustment.reason,
        },
      ]);
      // The customer's row is locked: their newest transaction is the one just written.
      const page = await customerHistoryPage(tx, { storeId, externalId, beforeId: null, take: 1 });
      return {
        transaction: page?.transactions[0] as HistoryTransactionRow,
        balance: balance as number,
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
