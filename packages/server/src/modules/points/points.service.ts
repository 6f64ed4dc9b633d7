import type { CalculatePointsQuery, CalculatePointsResponse } from "@loyalty/shared-types";
import type { Queryable } from "../../db/pool.js";
import { AppError } from "../../http/app-error.js";
import type {
  CachedSection,
  MaybePromise,
  StorefrontCache,
  StorefrontSection,
} from "../storefront/storefront.cache.js";
import { chooseRule, indexRules, linePoints, type RuleSet } from "./points.engine.js";
import { activeRules } from "./points.repository.js";

const NO_CATEGORIES: readonly number[] = [];

function calculateWith(
  rules: CachedSection<RuleSet> | undefined,
  query: CalculatePointsQuery,
): CalculatePointsResponse {
  if (!rules) throw new AppError("not-found", "No store has this domain.");
  const { price } = query;
  const rule = chooseRule(rules.value, {
    productId: query.product,
    categoryIds: query.categories ?? NO_CATEGORIES,
    amount: price,
    quantity: 1,
  });
  if (!rule) return { points: 0, type: null, id: null };
  return { points: linePoints(rule, price, 1), type: rule.kind, id: rule.id };
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
}
