import type { RuleKind } from "@loyalty/shared-types";

/**
 * The points arithmetic, in one place: what `calculate` shows on a product page is what the
 * order worker credits, and what a refund deducts is computed from what was credited.
 * Pure functions, no I/O.
 */

/** An attribution rule as it applies: copied into the order's snapshot at earn time. */
export interface Rule {
  id: number;
  kind: RuleKind;
  /** Product or category id; null for the default rule. */
  targetId: number | null;
  /** Points per unit of currency paid. */
  rate: number;
  /** Points added per item bought. */
  pointsPerItem: number;
}

/** A store's active rules, indexed for the precedence product > category > default. */
export interface RuleSet {
  products: ReadonlyMap<number, Rule>;
  categories: ReadonlyMap<number, Rule>;
  fallback: Rule | undefined;
}

export function indexRules(rules: readonly Rule[]): RuleSet {
  const products = new Map<number, Rule>();
  const categories = new Map<number, Rule>();
  let fallback: Rule | undefined;
  for (const rule of rules) {
    if (rule.kind === "product" && rule.targetId !== null) products.set(rule.targetId, rule);
    else if (rule.kind === "category" && rule.targetId !== null)
      categories.set(rule.targetId, rule);
    else if (rule.kind === "default") fallback = rule;
  }
  return { products, categories, fallback };
}

// Exact decimal arithmetic: amounts have 2 decimals (cents), rates 4 (numeric(12,4)) and
// multipliers 3 (numeric(6,3)). Floats would floor 0.29 × 100 to 28.
const CENTS = 100n;
const RATE_SCALE = 10_000n;
const MULTIPLIER_SCALE = 1_000n;

function scaled(value: number, scale: bigint): bigint {
  return BigInt(Math.round(value * Number(scale)));
}

/**
 * Whole points a line earns: (amount × rate + quantity × pointsPerItem) × multiplier, floored.
 * Flooring per line, never per order, so that a line's points do not depend on the others.
 */
export function linePoints(rule: Rule, amount: number, quantity: number, multiplier = 1): number {
  const perItem = BigInt(quantity) * BigInt(rule.pointsPerItem) * CENTS * RATE_SCALE;
  const spent = scaled(amount, CENTS) * scaled(rule.rate, RATE_SCALE);
  const total = (spent + perItem) * scaled(multiplier, MULTIPLIER_SCALE);
  return Number(total / (CENTS * RATE_SCALE * MULTIPLIER_SCALE));
}

/**
 * The rule that applies to a line: the product's rule; else, of the rules of its categories,
 * the one giving the most points (the lowest id on a tie, so the answer is stable); else the
 * default rule; else none.
 */
export function chooseRule(
  rules: RuleSet,
  line: {
    productId?: number | undefined;
    categoryIds: readonly number[];
    amount: number;
    quantity: number;
  },
): Rule | undefined {
  const productRule = line.productId === undefined ? undefined : rules.products.get(line.productId);
  if (productRule) return productRule;
  let best: Rule | undefined;
  let bestPoints = -1;
  for (const categoryId of line.categoryIds) {
    const rule = rules.categories.get(categoryId);
    if (!rule) continue;
    const points = linePoints(rule, line.amount, line.quantity);
    if (points > bestPoints || (points === bestPoints && best && rule.id < best.id)) {
      best = rule;
      bestPoints = points;
    }
  }
  return best ?? rules.fallback;
}

/** What an order line earned, kept with the order so later rule edits never change a refund. */
export interface EarnedLine {
  lineId: string;
  productId: number;
  quantity: number;
  /** The amount points were computed on (what the customer paid for the line). */
  amount: number;
  rule: Rule | null;
  points: number;
}

export interface EarnSnapshot {
  club: { id: number; name: string; multiplier: number } | null;
  multiplier: number;
  lines: EarnedLine[];
}

/**
 * What one order line earns: the rule chosen for the line (on the whole line's points, club
 * excluded), and its points with the club's multiplier.
 */
export function earnLine(
  rules: RuleSet,
  line: {
    productId?: number | undefined;
    categoryIds: readonly number[];
    quantity: number;
    totalPaid: number;
  },
  multiplier: number,
): { rule: Rule | undefined; points: number } {
  const amount = line.totalPaid;
  const rule = chooseRule(rules, { ...line, amount });
  return { rule, points: rule ? linePoints(rule, amount, line.quantity, multiplier) : 0 };
}

export function earnOrder(
  rules: RuleSet,
  lines: readonly {
    lineId: string | number;
    productId: number;
    categoryIds: readonly number[];
    quantity: number;
    totalPaid: number;
  }[],
  club: EarnSnapshot["club"],
): { points: number; snapshot: EarnSnapshot } {
  const multiplier = club?.multiplier ?? 1;
  const earned = lines.map((line): EarnedLine => {
    const { rule, points } = earnLine(rules, line, multiplier);
    return {
      lineId: String(line.lineId),
      productId: line.productId,
      quantity: line.quantity,
      amount: line.totalPaid,
      rule: rule ?? null,
      points,
    };
  });
  return {
    points: earned.reduce((sum, line) => sum + line.points, 0),
    snapshot: { club, multiplier, lines: earned },
  };
}

/** A refund declaration, cumulative since the order was placed. */
export interface RefundDeclaration {
  status: "partially_refunded" | "refunded" | "cancelled";
  refundedAmount?: number | undefined;
  lines?: readonly { lineId: string | number; quantity: number; amount?: number | undefined }[];
}

/**
 * Points a declaration takes back in total (not the delta): points earned × cumulative refunded
 * share, floored. A full refund or a cancellation takes everything back. Itemised lines win
 * over `refundedAmount`; a line's amount, when given, wins over its quantity. Lines the order
 * does not have are ignored and reported.
 */
export function refundTarget(
  earnedPoints: number,
  snapshot: EarnSnapshot,
  refund: RefundDeclaration,
): { points: number; unknownLineIds: string[] } {
  if (refund.status !== "partially_refunded") return { points: earnedPoints, unknownLineIds: [] };
  const unknownLineIds: string[] = [];
  let points = 0;
  if (refund.lines?.length) {
    const byId = new Map(snapshot.lines.map((line) => [line.lineId, line]));
    for (const refunded of refund.lines) {
      const line = byId.get(String(refunded.lineId));
      if (!line) {
        unknownLineIds.push(String(refunded.lineId));
        continue;
      }
      const share =
        refunded.amount !== undefined && line.amount > 0
          ? refunded.amount / line.amount
          : refunded.quantity / line.quantity;
      points += line.points * Math.min(share, 1);
    }
  } else if (refund.refundedAmount !== undefined) {
    const basis = snapshot.lines.reduce((sum, line) => sum + line.amount, 0);
    const share = basis > 0 ? refund.refundedAmount / basis : refund.refundedAmount > 0 ? 1 : 0;
    points = earnedPoints * Math.min(share, 1);
  }
  // The epsilon absorbs binary fractions: 15 × (1/3) must give 5, not 4.999….
  return { points: Math.min(Math.floor(points + 1e-9), earnedPoints), unknownLineIds };
}

/**
 * What a declaration gives back of the order's amount (cumulative), for clubs by amount spent:
 * `"all"` for a full refund or a cancellation; else the itemised lines (a line's amount, or its
 * quantity's share of the line), else `refundedAmount`. The order's own total caps it (in SQL).
 */
export function refundedAmount(snapshot: EarnSnapshot, refund: RefundDeclaration): number | "all" {
  if (refund.status !== "partially_refunded") return "all";
  if (refund.lines?.length) {
    const byId = new Map(snapshot.lines.map((line) => [line.lineId, line]));
    let amount = 0;
    for (const refunded of refund.lines) {
      const line = byId.get(String(refunded.lineId));
      if (!line) continue;
      amount +=
        refunded.amount !== undefined
          ? Math.min(refunded.amount, line.amount)
          : line.amount * Math.min(refunded.quantity / line.quantity, 1);
    }
    return Math.round(amount * 100) / 100;
  }
  return refund.refundedAmount ?? 0;
}
