import { msg, str } from "@lit/localize";
import type { AttributionRule, Club, ClubPolicy, RuleKind } from "@loyalty/shared-types";
import { intlLocale } from "../../i18n/locale.js";
import { formatNumber } from "../../ui/format.js";

/*
 * The programme in words: what a rule gives, what a club needs. Call them in render(): they
 * follow the chosen language.
 */

/** `2 points`, `1.5 points` (`1,5 point` in French: its plural starts at 2), rates included. */
export function pointsAmount(value: number): string {
  const count = formatNumber(value, { maximumFractionDigits: 4 });
  return new Intl.PluralRules(intlLocale()).select(value) === "one"
    ? msg(str`${count} point`)
    : msg(str`${count} points`);
}

/** One unit of the store's currency: `€1`, `1 €`. */
export function currencyUnit(currency: string): string {
  return formatNumber(1, { style: "currency", currency, maximumFractionDigits: 0 });
}

export function kindLabel(kind: RuleKind): string {
  switch (kind) {
    case "product":
      return msg("Product rule");
    case "category":
      return msg("Category rule");
    case "default":
      return msg("Default rule");
  }
}

/** What a rule applies to: `Product 301`, `Category 40`, every other product. */
export function targetText(rule: Pick<AttributionRule, "kind" | "targetId">): string {
  const id = String(rule.targetId ?? "");
  switch (rule.kind) {
    case "product":
      return msg(str`Product ${id}`);
    case "category":
      return msg(str`Category ${id}`);
    case "default":
      return msg("Every product without a product or category rule");
  }
}

/** The rule's name, or what it applies to when it has none. */
export function ruleTitle(rule: AttributionRule): string {
  return rule.name || targetText(rule);
}

/** What the rule gives: `2 points per €1 spent, plus 10 points per item`. */
export function ruleEarning(rule: AttributionRule, currency: string): string {
  const perSpend = msg(str`${pointsAmount(rule.rate)} per ${currencyUnit(currency)} spent`);
  if (rule.pointsPerItem === 0) return perSpend;
  const perItem = msg(str`${pointsAmount(rule.pointsPerItem)} per item`);
  return rule.rate === 0 ? perItem : msg(str`${perSpend}, plus ${perItem}`);
}

/** A club's multiplier: `× 1.25`. */
export function multiplierText(multiplier: number): string {
  return msg(str`× ${formatNumber(multiplier, { maximumFractionDigits: 3 })}`);
}

/** What a club gives its members, in words. */
export function clubEarning(club: Club): string {
  return club.multiplier === 1
    ? msg("Points as earned (multiplier 1)")
    : msg(str`Points ${multiplierText(club.multiplier)}`);
}

/** What it takes to belong to a club, by the store's club policy. */
export function clubThreshold(club: Club, policy: ClubPolicy, currency: string): string {
  if (policy.basis === "amount-spent") {
    const spent = formatNumber(club.threshold, { style: "currency", currency });
    switch (policy.period) {
      case "rolling-12-months":
        return msg(str`From ${spent} spent over the last 12 months`);
      case "calendar-year":
        return msg(str`From ${spent} spent in a calendar year`);
      case "lifetime":
        return msg(str`From ${spent} spent in all`);
    }
  }
  const earned = pointsAmount(club.threshold);
  switch (policy.period) {
    case "rolling-12-months":
      return msg(str`From ${earned} earned over the last 12 months`);
    case "calendar-year":
      return msg(str`From ${earned} earned in a calendar year`);
    case "lifetime":
      return msg(str`From ${earned} earned in all`);
  }
}

/** How the threshold of a club is counted, for the club form. */
export function thresholdHint(policy: ClubPolicy): string {
  if (policy.basis === "amount-spent") {
    switch (policy.period) {
      case "rolling-12-months":
        return msg("An amount in your currency, spent over the last 12 months (rolling).");
      case "calendar-year":
        return msg("An amount in your currency, spent in a calendar year.");
      case "lifetime":
        return msg("An amount in your currency, spent since the first order.");
    }
  }
  switch (policy.period) {
    case "rolling-12-months":
      return msg("Points earned over the last 12 months (rolling).");
    case "calendar-year":
      return msg("Points earned in a calendar year.");
    case "lifetime":
      return msg("Points earned since the first order.");
  }
}
