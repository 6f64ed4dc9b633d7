import type { CustomerCode } from "@loyalty/node-sdk";

/** What a code gives, as the loyalty service describes both reward codes and welcome codes. */
export type Voucher = CustomerCode["voucher"];

/** A code the store checked for the shopper: its code, its name and what it gives. */
export interface AppliedCode {
  code: string;
  /** The reward's name, or "Welcome offer" for an invited friend's code. */
  name: string;
  voucher: Voucher;
}

/** Codes are `XXXX-XXXX-XXXX`; a platform's own may be longer, never this long. */
export const MAX_CODE_LENGTH = 64;
const CODE_SHAPE = new RegExp(`^[A-Z0-9-]{1,${MAX_CODE_LENGTH}}$`, "i");

/** Whether text could be a code: anything else is never one, nor repeated on a page. */
export const isCodeShaped = (text: string) => CODE_SHAPE.test(text);

/** The store sells in euros. */
export const CURRENCY = "EUR";
/** Shipping, free from FREE_SHIPPING_FROM of goods: what a free-shipping code waives below that. */
export const SHIPPING_FEE = 4.9;
export const FREE_SHIPPING_FROM = 40;

/** Why a code takes nothing off this cart, for the page to word. */
export type Unmet =
  | { reason: "minimum"; minimum: number; missing: number }
  | { reason: "currency"; currency: string }
  | { reason: "shipping-free" };

export interface CartTotals {
  /** The goods, before the code. */
  subtotal: number;
  /** Shipping before the code. */
  shippingFee: number;
  /** What the code takes off the goods: the order's `discountAmount`. */
  goodsDiscount: number;
  /** Shipping as charged: nothing with a free-shipping code. The order's `shippingAmount`. */
  shipping: number;
  /** Everything the code takes off, goods and shipping. */
  discount: number;
  /** What each line costs after the code, in the lines' order: each line's `totalPaid`. */
  lineTotals: number[];
  total: number;
  /** Why the code gives nothing; undefined when it applies, or without a code. */
  unmet: Unmet | undefined;
}

const toCents = (amount: number) => Math.round(amount * 100);
const fromCents = (cents: number) => cents / 100;
/** An amount in euros to the cent, as orders and the loyalty service take it. */
export const roundCents = (amount: number) => fromCents(toCents(amount));

/**
 * Spreads an amount off the goods over the lines in proportion to their amounts, in whole
 * cents (the largest remainders get the odd cents): each line's `totalPaid` is what the
 * customer paid for it, and the points are earned on that.
 */
function spread(lineCents: number[], discountCents: number): number[] {
  const total = lineCents.reduce((sum, cents) => sum + cents, 0);
  if (!total || !discountCents) return lineCents;
  const shares = lineCents.map((cents) => {
    const exact = (discountCents * cents) / total;
    return { cents: Math.floor(exact), remainder: exact - Math.floor(exact) };
  });
  let odd = discountCents - shares.reduce((sum, share) => sum + share.cents, 0);
  for (const share of [...shares].sort((a, b) => b.remainder - a.remainder)) {
    if (odd === 0) break;
    share.cents += 1;
    odd -= 1;
  }
  return lineCents.map((cents, index) => cents - (shares[index]?.cents ?? 0));
}

/** What a cart of these line amounts costs, with the code's voucher if it has one. */
export function priceCart(lineAmounts: number[], voucher: Voucher | undefined): CartTotals {
  const lineCents = lineAmounts.map(toCents);
  const subtotalCents = lineCents.reduce((sum, cents) => sum + cents, 0);
  const feeCents =
    subtotalCents && subtotalCents < toCents(FREE_SHIPPING_FROM) ? toCents(SHIPPING_FEE) : 0;
  let goodsCents = 0;
  let waivedCents = 0;
  let unmet: Unmet | undefined;
  if (voucher?.minimumOrderAmount && subtotalCents < toCents(voucher.minimumOrderAmount)) {
    unmet = {
      reason: "minimum",
      minimum: voucher.minimumOrderAmount,
      missing: fromCents(toCents(voucher.minimumOrderAmount) - subtotalCents),
    };
  } else if (voucher?.kind === "fixed_amount") {
    if (voucher.currency === CURRENCY) {
      goodsCents = Math.min(toCents(voucher.value ?? 0), subtotalCents);
    } else {
      unmet = { reason: "currency", currency: voucher.currency ?? "?" };
    }
  } else if (voucher?.kind === "percentage") {
    goodsCents = Math.min(Math.round((subtotalCents * (voucher.value ?? 0)) / 100), subtotalCents);
  } else if (voucher?.kind === "free_shipping") {
    // A code used on an order it gives nothing to would be spent for nothing.
    if (feeCents) waivedCents = feeCents;
    else unmet = { reason: "shipping-free" };
  }
  const lineTotals = spread(lineCents, goodsCents).map(fromCents);
  return {
    subtotal: fromCents(subtotalCents),
    shippingFee: fromCents(feeCents),
    goodsDiscount: fromCents(goodsCents),
    shipping: fromCents(feeCents - waivedCents),
    discount: fromCents(goodsCents + waivedCents),
    lineTotals,
    total: fromCents(subtotalCents - goodsCents + feeCents - waivedCents),
    unmet,
  };
}
