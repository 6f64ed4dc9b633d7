/**
 * Every string the widgets write themselves, in one table per language. The merchant's own
 * texts (titles, templates, FAQ) come from the widget configurations, in the store's language.
 * A language missing here, or a string missing from one, falls back to English.
 */
const en = {
  loading: "Loading loyalty programme",
  unavailable: "The loyalty programme is unavailable right now.",
  signInAgain: "Your session has expired: sign in again to see your points.",
  point: "point",
  points: "points",
  balance: "Your balance",
  pending: "Pending",
  pendingHint: "Points of recent orders, spendable once the return period ends.",
  availableOn: "Spendable from {date}",
  nextExpiry: "{points} expire on {date}: spend them before.",
  "refund-after-spending":
    "Your balance is negative: an order was refunded after its points were spent. Points you earn next make up the difference first.",
  "store-adjustment":
    "Your balance is negative: the store took back points. Points you earn next make up the difference first.",
  claim: "Claim",
  claimFor: "Claim {name} for {points}",
  claiming: "Claiming…",
  yourCode: "Your code for {name}",
  copy: "Copy code",
  copied: "Copied",
  validUntil: "Valid until {date}",
  "insufficient-balance": "You do not have enough points for this reward.",
  "voucher-inactive": "This reward is no longer available.",
  "usage-limit-reached": "This reward has been claimed by too many customers.",
  claimFailed: "The reward could not be claimed. Please try again.",
  signIn: "Sign in",
  noRewards: "No rewards yet.",
  affordable: "Rewards you can claim",
  needMore: "{points} more to unlock",
  club: "Club",
  toNextClub: "{points} to {club}",
  toNextClubSpent: "Spend {amount} more to reach {club}",
  history: "Transactions",
  noHistory: "No transactions yet.",
  more: "Show more",
  earn: "Order",
  refund_deduction: "Refund",
  reward_redemption: "Reward",
  referral_bonus: "Referral bonus",
  manual_adjustment: "Adjustment",
  expiry: "Expired points",
  activity_bonus: "Bonus",
};

export type StringKey = keyof typeof en;

/** Whether the table has a string for a value the API sent (a refusal reason, a ledger kind). */
export const hasString = (key: string): key is StringKey => Object.hasOwn(en, key);

const fr: Partial<Record<StringKey, string>> = {
  loading: "Chargement du programme de fidélité",
  unavailable: "Le programme de fidélité est indisponible pour le moment.",
  signInAgain: "Votre session a expiré : reconnectez-vous pour voir vos points.",
  balance: "Votre solde",
  pending: "En attente",
  pendingHint: "Points de commandes récentes, utilisables à la fin du délai de retour.",
  availableOn: "Utilisables à partir du {date}",
  nextExpiry: "{points} expirent le {date} : utilisez-les avant.",
  "refund-after-spending":
    "Votre solde est négatif : une commande a été remboursée après que ses points ont été dépensés. Les prochains points gagnés comblent d’abord la différence.",
  "store-adjustment":
    "Votre solde est négatif : la boutique a repris des points. Les prochains points gagnés comblent d’abord la différence.",
  claim: "Obtenir",
  claimFor: "Obtenir {name} pour {points}",
  claiming: "En cours…",
  yourCode: "Votre code pour {name}",
  copy: "Copier le code",
  copied: "Copié",
  validUntil: "Valable jusqu’au {date}",
  "insufficient-balance": "Vous n’avez pas assez de points pour cette récompense.",
  "voucher-inactive": "Cette récompense n’est plus disponible.",
  "usage-limit-reached": "Cette récompense a été obtenue par trop de clients.",
  claimFailed: "La récompense n’a pas pu être obtenue. Veuillez réessayer.",
  signIn: "Se connecter",
  noRewards: "Aucune récompense pour le moment.",
  affordable: "Récompenses disponibles",
  needMore: "Encore {points} pour la débloquer",
  club: "Club",
  toNextClub: "{points} avant {club}",
  toNextClubSpent: "Encore {amount} d’achats avant {club}",
  history: "Opérations",
  noHistory: "Aucune opération pour le moment.",
  more: "Voir plus",
  earn: "Commande",
  refund_deduction: "Remboursement",
  reward_redemption: "Récompense",
  referral_bonus: "Bonus de parrainage",
  manual_adjustment: "Ajustement",
  expiry: "Points expirés",
  activity_bonus: "Bonus",
};

const tables: Record<string, Partial<Record<StringKey, string>>> = { en, fr };

/** The strings, numbers and dates of one language. */
export interface Locale {
  lang: string;
  t: (key: StringKey, params?: Record<string, string | number>) => string;
  /** A number as the language writes it (1 234 in French, 1,234 in English). */
  number: (value: number) => string;
  /** "1 point", "250 points". */
  points: (value: number) => string;
  date: (iso: string) => string;
}

const locales = new Map<string, Locale>();

/** `fr-CA` reads the French table; an unknown language reads English. */
export function locale(lang: string | undefined): Locale {
  const tag = lang || "en";
  let found = locales.get(tag);
  if (!found) {
    const table = tables[tag.toLowerCase().split("-")[0] ?? "en"] ?? {};
    let numbers: Intl.NumberFormat, plural: Intl.PluralRules, dates: Intl.DateTimeFormat;
    try {
      numbers = new Intl.NumberFormat(tag);
      plural = new Intl.PluralRules(tag);
      dates = new Intl.DateTimeFormat(tag, { dateStyle: "medium" });
    } catch {
      // A malformed lang attribute must not break the widget.
      return locale("en");
    }
    // A key the table lacks (a value the API added after this release) reads as nothing.
    const t: Locale["t"] = (key, params = {}) =>
      fill(table[key] ?? en[key] ?? "", (name) => params[name]);
    found = {
      lang: tag,
      t,
      number: (value) => numbers.format(value),
      points: (value) =>
        `${numbers.format(value)} ${t(plural.select(value) === "one" ? "point" : "points")}`,
      date: (iso) => dates.format(new Date(iso)),
    };
    locales.set(tag, found);
  }
  return found;
}

/** Replaces `{name}` placeholders; an unknown one is left as written. */
export function fill(template: string, value: (name: string) => string | number | undefined) {
  return template.replace(/\{(\w+)\}/g, (match, name: string) => String(value(name) ?? match));
}
