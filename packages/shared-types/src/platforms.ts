import { z } from "zod";

/**
 * The e-commerce platforms a store's programme can run on. The service asks the store's
 * platform for discount codes (reward claims, referee codes) and customers (referral checks).
 * `sandbox` keeps the codes in the service's own database: for demos and tests.
 */
export const PLATFORM_KINDS = ["sandbox", "woocommerce", "shopify", "prestashop"] as const;
export const platformKindSchema = z.enum(PLATFORM_KINDS);
export type PlatformKind = z.infer<typeof platformKindSchema>;

/** Shopify Admin API version the adapter speaks (Shopify supports each for a year). */
export const SHOPIFY_API_VERSION = "2026-10";

/** The platform's base URL: an http(s) origin, with a path only for a shop installed in one. */
const platformUrlSchema = z
  .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
  .max(2048)
  // Credentials have fields of their own; in the URL they would be logged and refused by fetch.
  .refine((url) => {
    // Refinements also run on what the URL check refused: that one is already reported.
    if (!URL.canParse(url)) return true;
    const parsed = new URL(url);
    return parsed.username === "" && parsed.password === "";
  }, "must not contain a user name or password")
  .transform((url) => url.replace(/\/+$/, ""));

const secret = (what: string) => z.string().trim().min(1, `${what} is required`).max(2048);

/**
 * A store's platform connection as the back-office writes it. Credentials are encrypted at rest
 * and never read back: no operation returns them.
 */
export const platformConnectionSchema = z.discriminatedUnion("platform", [
  z.object({ platform: z.literal("sandbox") }),
  z.object({
    platform: z.literal("woocommerce"),
    /** The WordPress site (`https://shop.example`); the REST API is under /wp-json/wc/v3. */
    url: platformUrlSchema,
    /** REST API key pair (WooCommerce > Settings > Advanced > REST API), read/write. */
    consumerKey: secret("consumerKey"),
    consumerSecret: secret("consumerSecret"),
  }),
  z.object({
    platform: z.literal("shopify"),
    /** The shop's admin origin: `https://<shop>.myshopify.com`. */
    url: platformUrlSchema,
    /** Admin API access token of a custom app (scopes write_discounts, read_customers). */
    accessToken: secret("accessToken"),
    apiVersion: z
      .string()
      .regex(/^\d{4}-(01|04|07|10)$/, "must be a Shopify API version such as 2026-10")
      // Code discounts name their customers with `context` from 2025-10 on.
      .refine(
        (version) => !/^\d{4}-\d{2}$/.test(version) || version >= "2025-10",
        "must be 2025-10 or later",
      )
      .default(SHOPIFY_API_VERSION),
  }),
  z.object({
    platform: z.literal("prestashop"),
    /** The shop's base URL; the webservice is under /api. */
    url: platformUrlSchema,
    /** Webservice key (Advanced Parameters > Webservice) with cart_rules and customers access. */
    webserviceKey: secret("webserviceKey"),
    /** Language and currency ids of the cart rules' names and amounts in the shop. */
    languageId: z.number().int().min(1).default(1),
    currencyId: z.number().int().min(1).default(1),
  }),
]);
export type PlatformConnection = z.output<typeof platformConnectionSchema>;
export type PlatformConnectionInput = z.input<typeof platformConnectionSchema>;
