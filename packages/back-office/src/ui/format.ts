import { msg, str } from "@lit/localize";
import { intlLocale } from "../i18n/locale.js";

/*
 * Numbers, amounts and dates in the chosen language (Intl). Call them in render(): the
 * elements render again when the language changes.
 */

export function formatNumber(value: number, options?: Intl.NumberFormatOptions): string {
  return new Intl.NumberFormat(intlLocale(), options).format(value);
}

/** `1 point`, `1,250 points` (`1 250 points` in French). */
export function formatPoints(points: number): string {
  const count = formatNumber(points);
  return new Intl.PluralRules(intlLocale()).select(points) === "one"
    ? msg(str`${count} point`)
    : msg(str`${count} points`);
}

/** An amount in the store's currency: `€12.50`, `12,50 €`. */
export function formatCurrency(amount: number, currency: string): string {
  return new Intl.NumberFormat(intlLocale(), { style: "currency", currency }).format(amount);
}

/** A share from 0 to 1 as a percentage: `0.125` → `12.5%`. */
export function formatPercent(share: number): string {
  return new Intl.NumberFormat(intlLocale(), {
    style: "percent",
    maximumFractionDigits: 1,
  }).format(share);
}

/** A day: `26 Nov 2026`. Takes an ISO date (`2026-11-26`, read as that day) or date-time. */
export function formatDate(value: string | Date): string {
  // A calendar day is the same day everywhere: formatted in UTC, never as the day before.
  const day = typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value);
  return new Intl.DateTimeFormat(intlLocale(), {
    dateStyle: "medium",
    ...(day ? { timeZone: "UTC" } : {}),
  }).format(new Date(value));
}

/** A moment, in the admin's time zone: `26 Nov 2026, 14:05`. */
export function formatDateTime(value: string | Date): string {
  return new Intl.DateTimeFormat(intlLocale(), { dateStyle: "medium", timeStyle: "short" }).format(
    new Date(value),
  );
}

/** A language's name in the app's language (`fr` → "French"), else its tag. */
export function languageName(language: string): string {
  try {
    return new Intl.DisplayNames([intlLocale()], { type: "language" }).of(language) ?? language;
  } catch {
    return language;
  }
}
