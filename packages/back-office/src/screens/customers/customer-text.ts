import { msg, str } from "@lit/localize";
import type { LedgerKind } from "@loyalty/shared-types";
import type { ResponseBody } from "../../api/client.js";
import { intlLocale } from "../../i18n/locale.js";
import { formatDate, formatNumber } from "../../ui/format.js";

/** One entry of a customer's ledger, as the back-office reads it. */
export type Transaction = ResponseBody<"listCustomerTransactions">["transactions"][number];

/** A customer's name as the screens show it: their name, else "Customer 1001". */
export function customerName(customer: {
  externalId: number;
  firstName: string | null;
  lastName: string | null;
}): string {
  const name = [customer.firstName, customer.lastName].filter(Boolean).join(" ");
  return name || msg(str`Customer ${customer.externalId}`);
}

/** A kind of ledger entry, in words. */
export function kindLabel(kind: LedgerKind): string {
  switch (kind) {
    case "earn":
      return msg("Points earned");
    case "refund_deduction":
      return msg("Refund deduction");
    case "reward_redemption":
      return msg("Reward claimed");
    case "referral_bonus":
      return msg("Referral bonus");
    case "manual_adjustment":
      return msg("Adjustment by hand");
    case "expiry":
      return msg("Points expired");
    case "activity_bonus":
      return msg("Bonus for an activity");
  }
}

/** What caused an entry: its order, reward, referral and note, in words. */
export function causeOf(transaction: Transaction, now = Date.now()): string[] {
  const causes: string[] = [];
  if (transaction.orderExternalId !== null) {
    causes.push(msg(str`Order ${transaction.orderExternalId}`));
  }
  if (transaction.rewardId !== null) causes.push(msg(str`Reward ${transaction.rewardId}`));
  if (transaction.referralId !== null) causes.push(msg(str`Referral ${transaction.referralId}`));
  if (transaction.activity !== null) {
    const { id, kind, label } = transaction.activity;
    causes.push(msg(str`${label || kind} (${id})`));
  }
  if (transaction.note) causes.push(msg(str`Note: ${transaction.note}`));
  if (transaction.availableAt !== null) {
    const date = formatDate(transaction.availableAt);
    causes.push(
      Date.parse(transaction.availableAt) > now
        ? msg(str`Pending until ${date}`)
        : msg(str`Pending until ${date}, now spendable`),
    );
  }
  if (transaction.pendingPoints < 0) {
    causes.push(msg(str`Taken from pending points: ${formatNumber(-transaction.pendingPoints)}`));
  }
  return causes;
}

/** Points with their sign: `+150`, `-500`. */
export function signedPoints(points: number): string {
  return formatNumber(points, { signDisplay: "exceptZero" });
}

/** Points with their sign and unit: `+150 points`, `-1 point`. */
export function formatSignedPoints(points: number): string {
  const count = signedPoints(points);
  return new Intl.PluralRules(intlLocale()).select(Math.abs(points)) === "one"
    ? msg(str`${count} point`)
    : msg(str`${count} points`);
}
