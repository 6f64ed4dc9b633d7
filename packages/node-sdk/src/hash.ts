import { createHmac } from "node:crypto";

/** A customer's identifier in the store's platform: a whole number, or its decimal text. */
export type CustomerId = number | string;

export interface HashCredentials {
  /** The store's internal reference (back-office). Never send it to a browser. */
  storeReference: string;
  /** An active API key of the store. Never send it to a browser. */
  apiKey: string;
}

/** The decimal text of a customer id, the message of the hash; throws on anything else. */
export function customerIdText(externalId: CustomerId): string {
  const text = typeof externalId === "number" ? String(externalId) : externalId;
  if (!/^\d{1,16}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new TypeError(
      `A customer id must be a whole number (the customer's id in the store's platform); received ${JSON.stringify(externalId)}.`,
    );
  }
  return text;
}

/**
 * The customer hash of the HMAC-authenticated operations and of the widgets: hex HMAC-SHA512
 * of the customer id's text, keyed `<storeReference>:<apiKey>`. Compute it on the server; it
 * may be put in a page, the reference and the key never.
 */
export function customerHash(externalId: CustomerId, credentials: HashCredentials): string {
  return createHmac("sha512", `${credentials.storeReference}:${credentials.apiKey}`)
    .update(customerIdText(externalId), "utf8")
    .digest("hex");
}

/** The attributes a store's server puts on a widget tag. */
export type WidgetAttributes = {
  /** The store's domain, as declared in the back-office. */
  domain: string;
  /** Where the widgets call the API. */
  "api-base": string;
  /** The logged-in customer's id; absent for a visitor. */
  "customer-id"?: string;
  /** The customer's hash; absent for a visitor. */
  "customer-hash"?: string;
};

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** `name="value"` pairs for an HTML tag, values escaped: `<loyalty-cart ${html}>`. */
export function formatAttributes(attributes: Readonly<Record<string, string | undefined>>): string {
  return Object.entries(attributes)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}="${value.replace(/[&<>"']/g, (c) => ESCAPES[c]!)}"`)
    .join(" ");
}
