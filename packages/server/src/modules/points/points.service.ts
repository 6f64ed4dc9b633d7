import type {
  CalculateManyPointsQuery,
  CalculateManyPointsResponse,
  CalculatePointsQuery,
  CalculatePointsResponse,
  PointsPreview,
} from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";
import { AppError } from "../../errors.js";
import type {
  CachedSection,
  MaybePromise,
  StorefrontCache,
  StorefrontSection,
} from "../storefront/storefront.cache.js";
import { chooseRule, earnLine, indexRules, linePoints, type RuleSet } from "./points.engine.js";
import { activeRules, listClubs } from "./points.repository.js";
import { listRules } from "./rules.repository.js";

const NO_CATEGORIES: readonly number[] = [];

/** A product as a product page shows it: what `calculate` is asked about. */
type ProductQuery = Pick<CalculatePointsQuery, "product" | "categories" | "price">;

/** The points one unit earns at `price`: `calculate`'s answer. */
function calculateFor(rules: RuleSet, query: ProductQuery): CalculatePointsResponse {
  const { price } = query;
  const rule = chooseRule(rules, {
    productId: query.product,
    categoryIds: query.categories ?? NO_CATEGORIES,
    amount: price,
    quantity: 1,
  });
  if (!rule) return { points: 0, type: null, id: null };
  return { points: linePoints(rule, price, 1), type: rule.kind, id: rule.id };
}

function calculateWith(
  rules: CachedSection<RuleSet> | undefined,
  query: CalculatePointsQuery,
): CalculatePointsResponse {
  if (!rules) throw new AppError("not-found", "No store has this domain.");
  return calculateFor(rules.value, query);
}

function calculateManyWith(
  rules: CachedSection<RuleSet> | undefined,
  query: CalculateManyPointsQuery,
): CalculateManyPointsResponse {
  if (!rules) throw new AppError("not-found", "No store has this domain.");
  return {
    items: query.items.map((item) => ({
      product: item.product ?? null,
      price: item.price,
      categories: item.categories ?? [],
      ...calculateFor(rules.value, item),
    })),
  };
}

export class PointsService {
  /** A store's active attribution rules, indexed, in the storefront cache. */
  private readonly rules: StorefrontSection<RuleSet>;

  constructor(
    db: Queryable,
    private readonly storefront: StorefrontCache,
  ) {
    this.rules = {
      load: async (store) => {
        const rules = await activeRules(db, store.id);
        return { value: indexRules(rules), version: JSON.stringify(rules) };
      },
    };
  }

  /**
   * The points one unit of a product earns at `price` on a product page, club multipliers
   * excluded. Synchronous when the store's rules are in memory: the hot path awaits nothing.
   */
  calculate(query: CalculatePointsQuery): MaybePromise<CalculatePointsResponse> {
    const rules = this.storefront.section(query.domain, this.rules);
    return rules instanceof Promise
      ? rules.then((loaded) => calculateWith(loaded, query))
      : calculateWith(rules, query);
  }

  /**
   * The last answer to each batch, under the rules it was computed with. A batch is a
   * collection page's, asked by every visitor of the page with the same query (the same parsed
   * object: see mount-operation's remembered queries): while the store's rules are the same
   * section, the answer is the same object, and so is its encoding (points.routes).
   */
  private readonly batches = new WeakMap<
    CalculateManyPointsQuery,
    { rules: CachedSection<RuleSet>; answer: CalculateManyPointsResponse }
  >();

  /** `calculate` for each product of a page, with the store's rules read once. */
  calculateMany(query: CalculateManyPointsQuery): MaybePromise<CalculateManyPointsResponse> {
    const rules = this.storefront.section(query.domain, this.rules);
    return rules instanceof Promise
      ? rules.then((loaded) => this.batchAnswer(loaded, query))
      : this.batchAnswer(rules, query);
  }

  private batchAnswer(
    rules: CachedSection<RuleSet> | undefined,
    query: CalculateManyPointsQuery,
  ): CalculateManyPointsResponse {
    const last = this.batches.get(query);
    if (last && last.rules === rules) return last.answer;
    const answer = calculateManyWith(rules, query);
    if (rules) this.batches.set(query, { rules, answer });
    return answer;
  }
}

/**
 * Back-office: what a product would earn under the store's active rules, computed by the
 * functions that answer `calculate` (one unit) and credit orders (the line, per club).
 *
 * The rules and clubs are read from the database, not from the storefront cache: the order
 * worker reads them there too, a merchant's preview is rare enough for two indexed queries, the
 * cache holds no rule names, and a store the back-office looks at would otherwise stay in the
 * memory of a process that serves none of its storefront. Both agree once a write has answered:
 * rule and club writes wait until every process forgot its copy.
 */
export class PointsPreviewService {
  constructor(private readonly db: Queryable) {}

  async preview(
    storeId: number,
    query: ProductQuery & { quantity: number },
  ): Promise<PointsPreview> {
    const [rules, clubs] = await Promise.all([
      listRules(this.db, storeId),
      listClubs(this.db, storeId),
    ]);
    const active = rules.filter((rule) => rule.active);
    const ruleSet = indexRules(active);
    const unit = calculateFor(ruleSet, query);
    // An order line's amount when the store sends no totalPaid (see orderLineSchema). The line
    // chooses its rule on its own points: among category rules that tie on one unit, another
    // may win on several, as it would in an order.
    const line = {
      productId: query.product,
      categoryIds: query.categories ?? NO_CATEGORIES,
      quantity: query.quantity,
      totalPaid: Math.round(query.price * query.quantity * 100) / 100,
    };
    return {
      ...unit,
      ruleName: active.find((rule) => rule.id === unit.id)?.name ?? null,
      linePoints: earnLine(ruleSet, line, 1).points,
      clubs: clubs.map((club) => ({
        id: club.id,
        name: club.name,
        multiplier: club.multiplier,
        linePoints: earnLine(ruleSet, line, club.multiplier).points,
      })),
    };
  }
}
