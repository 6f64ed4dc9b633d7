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

/** A secret; left out or blank, it is refused with the same words, naming the field. */
const secret = (what: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? `${what} is required` : undefined) })
    .trim()
    .min(1, `${what} is required`)
    .max(2048);

/**
 * The connection fields that hold secrets: sealed at rest, never read back, and the only fields
 * a write may leave out (see platformConnectionWriteSchema).
 */
export const PLATFORM_SECRET_FIELDS = [
  "consumerKey",
  "consumerSecret",
  "accessToken",
  "webserviceKey",
] as const;
export type PlatformSecretField = (typeof PLATFORM_SECRET_FIELDS)[number];

const isSecret = (field: string): field is PlatformSecretField =>
  (PLATFORM_SECRET_FIELDS as readonly string[]).includes(field);

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

type ConnectionOptions = typeof platformConnectionSchema.options;
type WithOptionalSecrets<O> =
  O extends z.ZodObject<infer Shape extends z.core.$ZodShape, infer Config>
    ? z.ZodObject<
        { [K in keyof Shape]: K extends PlatformSecretField ? z.ZodOptional<Shape[K]> : Shape[K] },
        Config
      >
    : never;
type WithoutUrlAndSecrets<O> =
  O extends z.ZodObject<infer Shape extends z.core.$ZodShape, infer Config>
    ? z.ZodObject<Omit<Shape, PlatformSecretField | "url">, Config>
    : never;
/** The types of the options derived one by one: the union keeps its order and discriminator. */
type EachPlatform<T extends readonly unknown[], Derived extends "write" | "settings"> = {
  -readonly [I in keyof T]: Derived extends "write"
    ? WithOptionalSecrets<T[I]>
    : WithoutUrlAndSecrets<T[I]>;
};

/** The secret fields of one platform's connection, as a mask for zod's partial and omit. */
function secretsOf(option: z.ZodObject): Record<string, true> {
  return Object.fromEntries(
    Object.keys(option.shape)
      .filter(isSecret)
      .map((field) => [field, true]),
  );
}

/**
 * A connection as a write takes it: platformConnectionSchema with every secret optional. A
 * secret left out keeps the stored one, and only where the write names the stored platform and
 * URL (keepsStoredCredentials): anywhere else the strict schema applies (see
 * platformConnectionSchemaFor). The other settings are the write's, their defaults included.
 */
export const platformConnectionWriteSchema = z
  .discriminatedUnion(
    "platform",
    platformConnectionSchema.options.map((option) =>
      (option as z.ZodObject).partial(secretsOf(option)),
    ) as unknown as EachPlatform<ConnectionOptions, "write">,
  )
  .describe(
    "The secrets may be left out when the platform and the URL are the stored ones: the stored secrets are then kept. With another platform or URL, every secret is required.",
  );
export type PlatformConnectionWriteInput = z.input<typeof platformConnectionWriteSchema>;

/**
 * What a stored connection reads back: its platform and its settings, without the URL (the
 * summary has it) and without the secrets (never read back). Repeats `platform` so that a
 * client's type narrows on it.
 */
export const platformSettingsSchema = z.discriminatedUnion(
  "platform",
  platformConnectionSchema.options.map((option) =>
    (option as z.ZodObject).omit({
      ...secretsOf(option),
      ...("url" in option.shape ? { url: true } : {}),
    }),
  ) as unknown as EachPlatform<ConnectionOptions, "settings">,
);
export type PlatformSettings = z.output<typeof platformSettingsSchema>;

/** Where a write goes: the part of a connection that decides whether stored secrets are kept. */
const connectionTargetSchema = z.object({
  platform: platformKindSchema,
  url: platformUrlSchema.optional(),
});

/**
 * Whether a write of `input` keeps the stored secrets it leaves out: only where secrets are
 * stored and the write names the stored platform and the same URL (once normalised). The
 * stored secrets must never follow a changed URL: they would be sent to whichever host it
 * names.
 */
export function keepsStoredCredentials(
  stored:
    { platform: PlatformKind; url: string | null; hasCredentials: boolean } | null | undefined,
  input: unknown,
): boolean {
  if (!stored?.hasCredentials) return false;
  const target = connectionTargetSchema.safeParse(input);
  return (
    target.success && target.data.platform === stored.platform && target.data.url === stored.url
  );
}

/**
 * The schema a write of the connection is checked with, the stored connection given: the write
 * schema where keepsStoredCredentials, else the strict one (every secret required, refused as
 * "consumerKey is required" and so on). The server and the back-office check with it alike.
 */
export function platformConnectionSchemaFor(
  stored: Parameters<typeof keepsStoredCredentials>[0],
  input: unknown,
): typeof platformConnectionWriteSchema | typeof platformConnectionSchema {
  return keepsStoredCredentials(stored, input)
    ? platformConnectionWriteSchema
    : platformConnectionSchema;
}
