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
  confirmClaim: "Spend {points} on {name}?",
  confirm: "Confirm",
  cancel: "Cancel",
  minimumOrder: "On orders of {amount} or more",
  validFor: "Valid {duration} once claimed",
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
  close: "Close",
  available: "Spendable now",
  multiplier: "{multiplier}× points on every order",
  waysToEarn: "Ways to earn",
  rewards: "Rewards",
  myCodes: "My codes",
  noCodes: "No code to use yet: claim a reward and its code stays here.",
  invite: "Invite a friend",
  inviteOffer:
    "Your friend gets {offer} on their first order, and you earn {points} when they place it.",
  amountOff: "{amount} off",
  freeShipping: "free shipping",
  friendEmail: "Your friend's email",
  friendName: "Their first name (optional)",
  sendInvite: "Send the invitation",
  sending: "Sending…",
  invited: "Invitation sent to {email}.",
  inviteAnother: "Invite another friend",
  shareLink: "Share the invitation link",
  copyLink: "Copy the invitation link",
  linkCopied: "Link copied",
  invitationLink: "Invitation link: copy it and send it to your friend",
  shareText: "Here is your invitation to {store}",
  "referral-customer-already-exists": "This person is already a customer of the store.",
  "referral-already-pending": "This person has already been invited.",
  "referral-already-completed": "This person already joined through an invitation.",
  "validation-failed": "Check the email address.",
  inviteFailed: "The invitation could not be sent. Please try again.",
  join: "Join",
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
  confirmClaim: "Dépenser {points} pour {name} ?",
  confirm: "Confirmer",
  cancel: "Annuler",
  minimumOrder: "Dès {amount} d’achat",
  validFor: "Valable {duration} après l’obtention",
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
  close: "Fermer",
  available: "Utilisables maintenant",
  multiplier: "Points ×{multiplier} sur chaque commande",
  waysToEarn: "Comment gagner des points",
  rewards: "Récompenses",
  myCodes: "Mes codes",
  noCodes: "Aucun code à utiliser pour le moment : obtenez une récompense, son code restera ici.",
  invite: "Parrainer un ami",
  inviteOffer:
    "Votre ami reçoit {offer} sur sa première commande, et vous gagnez {points} quand il la passe.",
  amountOff: "{amount} de réduction",
  freeShipping: "la livraison offerte",
  friendEmail: "E-mail de votre ami",
  friendName: "Son prénom (facultatif)",
  sendInvite: "Envoyer l’invitation",
  sending: "Envoi…",
  invited: "Invitation envoyée à {email}.",
  inviteAnother: "Parrainer un autre ami",
  shareLink: "Partager le lien d’invitation",
  copyLink: "Copier le lien d’invitation",
  linkCopied: "Lien copié",
  invitationLink: "Lien d’invitation : copiez-le et envoyez-le à votre ami",
  shareText: "Voici votre invitation chez {store}",
  "referral-customer-already-exists": "Cette personne est déjà cliente de la boutique.",
  "referral-already-pending": "Cette personne a déjà été invitée.",
  "referral-already-completed": "Cette personne a déjà rejoint la boutique grâce à une invitation.",
  "validation-failed": "Vérifiez l’adresse e-mail.",
  inviteFailed: "L’invitation n’a pas pu être envoyée. Veuillez réessayer.",
  join: "S’inscrire",
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
  /** An amount in a currency: "€50.00", "50,00 €". */
  money: (amount: number, currency: string) => string;
  /** A number of days: "30 days", "1 jour". */
  days: (value: number) => string;
  /** A percentage given in hundredths: 10 is "10%", "10 %". */
  percent: (value: number) => string;
}

const locales = new Map<string, Locale>();

/** `fr-CA` reads the French table; an unknown language reads English. */
export function locale(lang: string | undefined): Locale {
  const tag = lang || "en";
  let found = locales.get(tag);
  if (!found) {
    const table = tables[tag.toLowerCase().split("-")[0] ?? "en"] ?? {};
    let numbers: Intl.NumberFormat, plural: Intl.PluralRules, dates: Intl.DateTimeFormat;
    let days: Intl.NumberFormat, percent: Intl.NumberFormat;
    try {
      numbers = new Intl.NumberFormat(tag);
      plural = new Intl.PluralRules(tag);
      dates = new Intl.DateTimeFormat(tag, { dateStyle: "medium" });
      days = new Intl.NumberFormat(tag, { style: "unit", unit: "day", unitDisplay: "long" });
      percent = new Intl.NumberFormat(tag, { style: "percent", maximumFractionDigits: 2 });
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
      money: (amount, currency) => {
        try {
          return new Intl.NumberFormat(tag, { style: "currency", currency }).format(amount);
        } catch {
          // A currency code this browser does not know still shows the amount.
          return `${numbers.format(amount)} ${currency}`;
        }
      },
      days: (value) => days.format(value),
      percent: (value) => percent.format(value / 100),
    };
    locales.set(tag, found);
  }
  return found;
}

/** Replaces `{name}` placeholders; an unknown one is left as written. */
export function fill(template: string, value: (name: string) => string | number | undefined) {
  return template.replace(/\{(\w+)\}/g, (match, name: string) => String(value(name) ?? match));
}
