import { z } from "zod";

/**
 * Field schemas shared by several operations. Query and path values arrive as text, so their
 * schemas accept text and produce typed values; body fields are JSON-typed.
 */

export const MAX_EXTERNAL_ID = Number.MAX_SAFE_INTEGER;

/** A customer's identifier in the store's platform, as a JSON number. */
export const externalIdSchema = z
  .number()
  .int("must be a whole number")
  .min(0)
  .max(MAX_EXTERNAL_ID);

/** The same identifier written in a path segment or a query string. */
export const externalIdTextSchema = z
  .string()
  .regex(/^\d{1,16}$/, "must be a whole number")
  .transform(Number)
  .pipe(externalIdSchema);

/**
 * The store's domain as declared in the back-office: a full origin with scheme
 * (`https://shop.example`). Look-ups normalise case and a trailing slash.
 */
export const domainSchema = z
  .string()
  .min(6)
  .max(255)
  // Control characters (a NUL above all) are never part of an origin and PostgreSQL refuses NUL.
  // eslint-disable-next-line no-control-regex
  .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters");

/** Customer HMAC: hex HMAC-SHA512 of the externalId text keyed `<store_reference>:<API_KEY>`. */
export const customerHashSchema = z
  .string()
  .regex(/^[0-9a-f]{128}$/, "must be 128 lower-case hexadecimal characters");

export const currencySchema = z
  .string()
  .regex(/^[A-Z]{3}$/, "must be an ISO 4217 code in capitals, such as EUR");

/** A language tag such as `en` or `fr-CA`; widgets and emails fall back to English. */
export const languageSchema = z
  .string()
  .regex(/^[a-z]{2}(-[A-Z]{2})?$/, "must be a language tag such as en or fr-CA");

/** An amount of money in the order's currency, in major units (19.99). */
export const moneySchema = z.number().min(0).max(1_000_000_000);

export const isoDateTimeSchema = z.iso.datetime({ offset: true });

export const emailSchema = z.email().max(254);

/**
 * A person's first or last name as the service repeats it to others (an invitation's greeting
 * and subject): letters, spaces, apostrophes, dots and hyphens, so that no one can make a
 * store's email carry a link or a message of their own.
 */
export const personNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(50)
  // Empty passes here: min(1) says what is wrong with it, once.
  .regex(
    /^([\p{L}\p{M}][\p{L}\p{M}' .-]*)?$/u,
    "may contain letters, spaces, apostrophes, dots and hyphens only",
  );

/** A colour the widgets may paint with: hex, rgb()/hsl() with numbers, or "" for "unset". */
export const colorSchema = z
  .string()
  .regex(
    /^(|#[0-9a-fA-F]{3,4}|#[0-9a-fA-F]{6}|#[0-9a-fA-F]{8}|(rgb|hsl)a?\(\s*[0-9.%,\s/]+\))$/,
    'must be a colour such as #1a73e8, rgb(26 115 232) or "" for the default',
  );

/** An http(s) URL, or "" where the field is required but unused. */
export const optionalUrlSchema = z.union([z.literal(""), z.url({ protocol: /^https?$/ })]);

/** Whole points. */
export const pointsSchema = z.number().int();

/** Reads a query value that must be a number (`price=12.5`). */
export const numberQuerySchema = z
  .string()
  .trim()
  .regex(/^-?\d+(\.\d+)?$/, "must be a number")
  .transform(Number);

/** The items of a query list: comma-separated, repeated or both, trimmed, empty ones dropped. */
export function listItems(value: string | string[]): string[] {
  return (Array.isArray(value) ? value : [value])
    .flatMap((part) => part.split(","))
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

/**
 * Reads a query value that is an array of whole numbers, in the usual forms:
 * `categories=1,2`, `categories=1&categories=2` and `categories[]=1&categories[]=2`
 * (the last is folded into `categories` by the server before validation).
 */
export const numberArrayQuerySchema = z
  .union([z.string(), z.array(z.string())])
  .transform(listItems)
  .pipe(
    z.array(
      z
        .string()
        .regex(/^\d{1,16}$/, "must be a whole number")
        .transform(Number),
    ),
  );

/**
 * A store's internal reference: the `<store_reference>` of the customer HMAC key. It is a
 * secret shared with the store's server, never shown in a browser.
 */
export const storeReferenceSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]{2,63}$/,
    "must be 3 to 64 letters, digits, - or _, starting with a letter or digit",
  );

/** Normalises a domain for look-ups: lower case, no trailing slash. */
export function normalizeDomain(domain: string): string {
  return domain.trim().toLowerCase().replace(/\/+$/, "");
}

/**
 * A store's domain as declared: a full origin (scheme, host, optional port), normalised.
 * `https://Shop.example/` is stored as `https://shop.example`.
 */
export const storeDomainSchema = z
  .string()
  .trim()
  .max(255)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (
        (url.protocol === "https:" || url.protocol === "http:") &&
        url.origin.toLowerCase() === normalizeDomain(value) &&
        url.username === "" &&
        url.password === ""
      );
    } catch {
      return false;
    }
  }, "must be an origin with scheme and no path, such as https://shop.example")
  .transform(normalizeDomain);
