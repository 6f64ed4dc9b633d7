import type { VoucherTerms } from "@loyalty/shared-types";
import { emailHtml, wordingFor } from "../../mail/html.js";
import type { MailMessage } from "../../mail/mailer.js";

export interface InvitationInput {
  /** The referee's language, else the store's: `fr`, `fr-CA`, `en`… (English otherwise). */
  language: string;
  to: string;
  storeName: string;
  referrerName: string | null;
  refereeFirstName: string | null;
  terms: VoucherTerms;
  /** The store's page that turns the referral hash into the referee's code. */
  link: string;
}

interface Wording {
  subject(store: string, referrer: string | null): string;
  greeting(name: string | null): string;
  pitch(referrer: string | null, store: string, offer: string): string;
  offer(terms: VoucherTerms, money: (amount: number) => string, percent: string): string;
  minimum(amount: string): string;
  validity(days: number): string;
  button: string;
  linkHelp: string;
  footer(store: string): string;
}

const WORDINGS: Record<"en" | "fr", Wording> = {
  en: {
    subject: (store, referrer) =>
      referrer ? `${referrer} invites you to ${store}` : `You are invited to ${store}`,
    greeting: (name) => (name ? `Hello ${name},` : "Hello,"),
    pitch: (referrer, store, offer) =>
      `${referrer ?? "A friend"} thinks you will like ${store}, and gives you ${offer} on your first order.`,
    offer: (terms, money, percent) =>
      terms.kind === "free_shipping"
        ? "free shipping"
        : terms.kind === "percentage"
          ? `${percent} off`
          : `${money(terms.value ?? 0)} off`,
    minimum: (amount) => `The offer applies to orders of ${amount} or more.`,
    validity: (days) => `Your code stays valid for ${days} days once you have it.`,
    button: "Get my code",
    linkHelp: "Or open this link:",
    footer: (store) =>
      `You receive this email because a customer of ${store} entered your address. If you do not know them, ignore it: you will hear nothing more from us.`,
  },
  fr: {
    subject: (store, referrer) =>
      referrer ? `${referrer} vous invite chez ${store}` : `Vous êtes invité chez ${store}`,
    greeting: (name) => (name ? `Bonjour ${name},` : "Bonjour,"),
    pitch: (referrer, store, offer) =>
      `${referrer ?? "Un ami"} pense que ${store} va vous plaire et vous offre ${offer} sur votre première commande.`,
    offer: (terms, money, percent) =>
      terms.kind === "free_shipping"
        ? "la livraison"
        : terms.kind === "percentage"
          ? `${percent} de réduction`
          : `${money(terms.value ?? 0)} de réduction`,
    minimum: (amount) => `L’offre s’applique dès ${amount} d’achat.`,
    validity: (days) => `Votre code reste valable ${days} jours après son obtention.`,
    button: "Obtenir mon code",
    linkHelp: "Ou ouvrez ce lien :",
    footer: (store) =>
      `Vous recevez cet email parce qu’un client de ${store} a saisi votre adresse. Si vous ne le connaissez pas, ignorez-le : vous n’aurez plus de nouvelles de nous.`,
  },
};

/** The invitation a referee receives, in their language: subject, text and HTML. */
export function invitationEmail(input: InvitationInput): MailMessage {
  const { wording, locale } = wordingFor(WORDINGS, input.language);
  const { terms } = input;
  const money = (amount: number) =>
    new Intl.NumberFormat(locale, { style: "currency", currency: terms.currency ?? "EUR" }).format(
      amount,
    );
  const percent = new Intl.NumberFormat(locale, {
    style: "percent",
    maximumFractionDigits: 2,
  }).format((terms.value ?? 0) / 100);
  const offer = wording.offer(terms, money, percent);
  const paragraphs = [
    wording.greeting(input.refereeFirstName),
    wording.pitch(input.referrerName, input.storeName, offer),
    ...(terms.minimumOrderAmount ? [wording.minimum(money(terms.minimumOrderAmount))] : []),
    ...(terms.validityDays ? [wording.validity(terms.validityDays)] : []),
  ];
  const footer = wording.footer(input.storeName);
  const text = [...paragraphs, `${wording.button}: ${input.link}`, "", footer].join("\n\n");
  const html = emailHtml({
    locale,
    paragraphs,
    button: wording.button,
    link: input.link,
    linkHelp: wording.linkHelp,
    footer,
  });
  return {
    to: input.to,
    subject: wording.subject(input.storeName, input.referrerName),
    text,
    html,
    language: locale,
  };
}
