import { describe, expect, it } from "vitest";
import {
  chooseRule,
  earnOrder,
  indexRules,
  linePoints,
  refundTarget,
  type Rule,
} from "../src/modules/points/points.engine.js";

const rule = (
  id: number,
  kind: Rule["kind"],
  rate: number,
  pointsPerItem = 0,
  targetId: number | null = null,
): Rule => ({
  id,
  kind,
  targetId: kind === "default" ? null : targetId,
  rate,
  pointsPerItem,
});

describe("linePoints", () => {
  it("floors amount × rate + items × points per item, times the multiplier", () => {
    expect(linePoints(rule(1, "default", 1), 19.99, 1)).toBe(19);
    expect(linePoints(rule(1, "default", 2, 5), 10, 3)).toBe(35);
    expect(linePoints(rule(1, "default", 1), 7, 1, 1.5)).toBe(10);
  });

  it("is exact where binary floats are not", () => {
    // 0.29 × 100 is 28.999999999999996 in floating point.
    expect(linePoints(rule(1, "default", 100), 0.29, 1)).toBe(29);
    expect(linePoints(rule(1, "default", 0.1), 30, 1)).toBe(3);
    expect(linePoints(rule(1, "default", 1.1), 1.1, 1, 1.1)).toBe(1);
  });

  it("gives zero on a free line or a zero rate", () => {
    expect(linePoints(rule(1, "default", 5), 0, 1)).toBe(0);
    expect(linePoints(rule(1, "default", 0), 999, 1)).toBe(0);
  });
});

describe("chooseRule", () => {
  const rules = indexRules([
    rule(1, "default", 1),
    rule(2, "product", 0.5, 0, 100),
    rule(3, "category", 2, 0, 10),
    rule(4, "category", 1, 15, 11),
    rule(5, "category", 2, 0, 12),
  ]);

  it("prefers the product's rule over its categories' and the default", () => {
    expect(
      chooseRule(rules, { productId: 100, categoryIds: [10], amount: 10, quantity: 1 })?.id,
    ).toBe(2);
  });

  it("takes the most generous category rule at this amount", () => {
    // 10 × 2 = 20 against 10 × 1 + 15 = 25; at 20, 40 against 35.
    expect(
      chooseRule(rules, { productId: 1, categoryIds: [10, 11], amount: 10, quantity: 1 })?.id,
    ).toBe(4);
    expect(
      chooseRule(rules, { productId: 1, categoryIds: [10, 11], amount: 20, quantity: 1 })?.id,
    ).toBe(3);
  });

  it("breaks a tie with the lowest rule id, whatever the order of the categories", () => {
    expect(chooseRule(rules, { categoryIds: [12, 10], amount: 10, quantity: 1 })?.id).toBe(3);
  });

  it("falls back to the default rule, or to none", () => {
    expect(
      chooseRule(rules, { productId: 7, categoryIds: [99], amount: 10, quantity: 1 })?.id,
    ).toBe(1);
    expect(
      chooseRule(indexRules([]), { categoryIds: [], amount: 10, quantity: 1 }),
    ).toBeUndefined();
  });
});

describe("refundTarget", () => {
  const { points, snapshot } = earnOrder(
    indexRules([rule(1, "default", 1)]),
    [
      { lineId: "A", productId: 1, categoryIds: [], quantity: 3, totalPaid: 15 },
      { lineId: "B", productId: 2, categoryIds: [], quantity: 1, totalPaid: 30 },
    ],
    null,
  );

  it("takes back everything on a full refund or a cancellation", () => {
    expect(points).toBe(45);
    expect(refundTarget(points, snapshot, { status: "refunded" }).points).toBe(45);
    expect(refundTarget(points, snapshot, { status: "cancelled" }).points).toBe(45);
  });

  it("takes the refunded share of each line, by quantity or by amount", () => {
    expect(
      refundTarget(points, snapshot, {
        status: "partially_refunded",
        lines: [{ lineId: "A", quantity: 1 }],
      }).points,
    ).toBe(5);
    expect(
      refundTarget(points, snapshot, {
        status: "partially_refunded",
        lines: [{ lineId: "B", quantity: 0, amount: 10 }],
      }).points,
    ).toBe(10);
    expect(
      refundTarget(points, snapshot, {
        status: "partially_refunded",
        lines: [{ lineId: "A", quantity: 9 }],
      }).points,
    ).toBe(15);
  });

  it("takes the order's refunded share when lines are not itemised, never more than earned", () => {
    expect(
      refundTarget(points, snapshot, { status: "partially_refunded", refundedAmount: 15 }).points,
    ).toBe(15);
    expect(
      refundTarget(points, snapshot, { status: "partially_refunded", refundedAmount: 1000 }).points,
    ).toBe(45);
  });

  it("reports lines the order does not have", () => {
    expect(
      refundTarget(points, snapshot, {
        status: "partially_refunded",
        lines: [{ lineId: "Z", quantity: 1 }],
      }),
    ).toEqual({ points: 0, unknownLineIds: ["Z"] });
  });
});
