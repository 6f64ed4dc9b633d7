import { msg, str } from "@lit/localize";
import type { VoucherTerms } from "@loyalty/shared-types";
import { formatCurrency, formatNumber, formatPercent } from "../../ui/format.js";

/*
 * A voucher's terms in the merchant's words, in the chosen language: what it takes off, on
 * which orders, for how long, how many codes. Called in render().
 */

/** What the code takes off: `€5.00 off`, `10% off`, `Free shipping`. */
export function voucherBenefit(terms: VoucherTerms): string {
  switch (terms.kind) {
    case "fixed_amount": {
      const amount = formatCurrency(terms.value ?? 0, terms.currency ?? "EUR");
      return msg(str`${amount} off`);
    }
    case "percentage": {
      const share = formatPercent((terms.value ?? 0) / 100);
      return msg(str`${share} off`);
    }
    case "free_shipping":
      return msg("Free shipping");
  }
}

/** The orders it applies to: `On orders of €30.00 or more`, `On any order`. */
export function voucherMinimum(terms: VoucherTerms, storeCurrency: string): string {
  if (terms.minimumOrderAmount === null) return msg("On any order");
  const amount = formatCurrency(terms.minimumOrderAmount, terms.currency ?? storeCurrency);
  return msg(str`On orders of ${amount} or more`);
}

/** How long a code lasts: `Valid 90 days after it is issued`, `No expiry`. */
export function voucherValidity(terms: VoucherTerms): string {
  const days = terms.validityDays;
  if (days === null) return msg("No expiry");
  return days === 1
    ? msg("Valid 1 day after it is issued")
    : msg(str`Valid ${formatNumber(days)} days after it is issued`);
}

/** The usage limit: `1,000 codes at most`, `No limit`. */
export function voucherLimit(usageLimit: number | null): string {
  if (usageLimit === null) return msg("No limit");
  return usageLimit === 1
    ? msg("1 code at most")
    : msg(str`${formatNumber(usageLimit)} codes at most`);
}

/** Codes it may still issue: a number, or `No limit`. */
export function codesRemaining(usageLimit: number | null, codesIssued: number): string {
  if (usageLimit === null) return msg("No limit");
  return formatNumber(Math.max(0, usageLimit - codesIssued));
}

/** The whole voucher in one line, for a list: `€5.00 off · On orders of €30.00 or more · …`. */
export function voucherSummary(terms: VoucherTerms, storeCurrency: string): string {
  return [voucherBenefit(terms), voucherMinimum(terms, storeCurrency), voucherValidity(terms)].join(
    " · ",
  );
}
