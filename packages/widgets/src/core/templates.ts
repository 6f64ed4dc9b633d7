import { html, nothing } from "lit";
import type { CustomerHistoryResponseV2 } from "@loyalty/shared-types";
import type { Locale } from "./i18n.js";

/** Only http(s) URLs become links: a `javascript:` URL from anywhere must never be clickable. */
export const isWebUrl = (url: string | undefined): url is string => /^https?:\/\//i.test(url ?? "");

/** A merchant's template with `{points}` as an emphasised, localised number. */
export function withPoints(template: string, value: number, { number }: Locale) {
  const [before, after] = template.split("{points}", 2);
  return html`${before}${after === undefined ? nothing : html`<strong>${number(value)}</strong>${after}`}`;
}

/** The placeholder of a loading widget, named for screen readers. */
export const loading = ({ t }: Locale) =>
  html`<span class="skeleton"></span><span class="sr-only">${t("loading")}</span>`;

/** The link to the store's sign-in page, when the configuration gives one. */
export const signInLink = (url: string | undefined, { t }: Locale, className = "button") =>
  isWebUrl(url)
    ? html`<a part="sign-in" class=${className} href=${url}>${t("signIn")}</a>`
    : nothing;

/** How far the customer is from the next club, in words and as a bar (the history's figures). */
export function clubProgress(
  history: CustomerHistoryResponseV2,
  { t, money, points }: Locale,
  currency: string,
) {
  const { nextClub } = history;
  if (!nextClub) return nothing;
  return html`<p id="next-club">
      ${
        history.clubQualification.basis === "amount-spent"
          ? t("toNextClubSpent", {
              amount: money(nextClub.pointsToReach, currency),
              club: nextClub.name,
            })
          : t("toNextClub", { points: points(nextClub.pointsToReach), club: nextClub.name })
      }
    </p>
    <progress
      aria-labelledby="next-club"
      max=${nextClub.threshold}
      .value=${history.clubQualification.figure}
    ></progress>`;
}
