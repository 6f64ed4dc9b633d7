import { describe, expect, it } from "vitest";
import { priceCart, type Voucher } from "../src/pricing.js";

const voucher = (terms: Partial<Voucher>): Voucher => ({
  kind: "fixed_amount",
  value: null,
  currency: null,
  minimumOrderAmount: null,
  ...terms,
});

describe("a cart's amounts with a code", () => {
  it("charges shipping below 40 €, which a free-shipping code waives", () => {
    expect(priceCart([14], undefined)).toMatchObject({ shipping: 4.9, total: 18.9 });
    const waived = priceCart([25], voucher({ kind: "free_shipping", minimumOrderAmount: 20 }));
    expect(waived).toMatchObject({ shippingFee: 4.9, shipping: 0, discount: 4.9, total: 25 });
    expect(waived.lineTotals).toEqual([25]);
  });

  it("keeps a free-shipping code for another order when shipping is free already", () => {
    const totals = priceCart([42], voucher({ kind: "free_shipping" }));
    expect(totals).toMatchObject({ discount: 0, total: 42, unmet: { reason: "shipping-free" } });
  });

  it("spreads an amount off over the lines, to the cent, for the points they earn", () => {
    const totals = priceCart([20, 20, 20], voucher({ value: 1, currency: "EUR" }));
    expect(totals.lineTotals).toEqual([19.66, 19.67, 19.67]);
    expect(totals).toMatchObject({ goodsDiscount: 1, shipping: 0, total: 59 });
    // 10 % of 33.35 € is 3.335 €: 3.34 € off, the odd cents spread too.
    const percent = priceCart([20, 13.35], voucher({ kind: "percentage", value: 10 }));
    expect(percent.goodsDiscount).toBe(3.34);
    expect(percent.lineTotals).toEqual([18, 12.01]);
  });

  it("takes nothing off below the minimum, and says what is missing", () => {
    const fiveOff = voucher({ value: 5, currency: "EUR", minimumOrderAmount: 30 });
    expect(priceCart([12.5], fiveOff)).toMatchObject({
      discount: 0,
      total: 17.4,
      unmet: { reason: "minimum", minimum: 30, missing: 17.5 },
    });
    expect(priceCart([42], fiveOff)).toMatchObject({ discount: 5, lineTotals: [37], total: 37 });
  });

  it("takes nothing off with an amount in another currency", () => {
    const totals = priceCart([50], voucher({ value: 5, currency: "USD" }));
    expect(totals).toMatchObject({ discount: 0, unmet: { reason: "currency", currency: "USD" } });
  });
});
