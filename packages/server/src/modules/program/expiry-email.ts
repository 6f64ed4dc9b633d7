import { emailHtml, wordingFor } from "../../mail/html.js";
import type { MailMessage } from "../../mail/mailer.js";

export interface ExpiryWarningInput {
  /** The customer's language, else the store's (English when neither has a wording). */
  language: string;
  to: string;
  storeName: string;
  /** The store's address: where the points can be spent. */
  storeUrl: string;
  firstName: string | null;
  points: number;
  expiresAt: Date;
}

interface Wording {
  subject(points: string, store: string): string;
  greeting(name: string | null): string;
  body(points: string, date: string, store: string): string;
  spend: string;
  button: string;
  linkHelp: string;
  footer(store: string): string;
}

const WORDINGS: { en: Wording; fr: Wording } = {
  en: {
    subject: (points, store) => `Your ${points} points at ${store} expire soon`,
    greeting: (name) => (name ? `Hello ${name},` : "Hello,"),
    body: (points, date, store) =>
      `${points} of your loyalty points at ${store} expire on ${date}.`,
    spend: "Spend them on a reward before then, or they will be lost.",
    button: "See my rewards",
    linkHelp: "Or open this link:",
    footer: (store) =>
      `You receive this email because you are a member of ${store}'s loyalty programme.`,
  },
  fr: {
    subject: (points, store) => `Vos ${points} points chez ${store} expirent bientôt`,
    greeting: (name) => (name ? `Bonjour ${name},` : "Bonjour,"),
    body: (points, date, store) =>
      `${points} de vos points de fidélité chez ${store} expirent le ${date}.`,
    spend: "Utilisez-les pour une récompense d’ici là, sinon ils seront perdus.",
    button: "Voir mes récompenses",
    linkHelp: "Ou ouvrez ce lien :",
    footer: (store) =>
      `Vous recevez cet email parce que vous êtes membre du programme de fidélité de ${store}.`,
  },
};

/** The warning a customer receives before their points expire, in their language. */
export function expiryWarningEmail(input: ExpiryWarningInput): MailMessage {
  const { wording, locale } = wordingFor(WORDINGS, input.language);
  const points = new Intl.NumberFormat(locale).format(input.points);
  const date = new Intl.DateTimeFormat(locale, { dateStyle: "long", timeZone: "UTC" }).format(
    input.expiresAt,
  );
  const paragraphs = [
    wording.greeting(input.firstName),
    wording.body(points, date, input.storeName),
    wording.spend,
  ];
  const footer = wording.footer(input.storeName);
  return {
    to: input.to,
    subject: wording.subject(points, input.storeName),
    text: [...paragraphs, `${wording.button}: ${input.storeUrl}`, "", footer].join("\n\n"),
    html: emailHtml({
      locale,
      paragraphs,
      button: wording.button,
      link: input.storeUrl,
      linkHelp: wording.linkHelp,
      footer,
    }),
    language: locale,
  };
}
