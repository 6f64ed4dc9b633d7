import { z } from "zod";
import {
  domainSchema,
  externalIdSchema,
  numberArrayQuerySchema,
  numberQuerySchema,
  externalIdTextSchema,
  listItems,
  pointsSchema,
} from "./common.js";

/** The kinds of attribution rule, in order of precedence. */
export const ruleKindSchema = z.enum(["product", "category", "default"]);
export type RuleKind = z.infer<typeof ruleKindSchema>;

/** GET /point/product-points/calculate query. */
export const calculatePointsQuerySchema = z.object({
  product: externalIdTextSchema.optional(),
  categories: numberArrayQuerySchema.optional(),
  price: numberQuerySchema.pipe(z.number().min(1).max(1_000_000_000)),
  domain: domainSchema,
});
export type CalculatePointsQuery = z.infer<typeof calculatePointsQuerySchema>;
export type CalculatePointsQueryInput = z.input<typeof calculatePointsQuerySchema>;

/** Products a batch may hold: a collection page of 60 and then some. */
export const MAX_BATCH_PRODUCTS = 100;

/**
 * One product of a batch, as text: `<product>:<price>` or `<product>:<price>:<categories>`,
 * the categories separated by `|`, the product empty when the page has no id for it
 * (`:12.5:4|9`). Its fields read as calculate's parameters of the same names.
 */
const productFieldsSchema = z.object({
  product: calculatePointsQuerySchema.shape.product,
  price: calculatePointsQuerySchema.shape.price,
  // Ids, as the answer gives them back (calculate alone takes any 16 digits: it echoes none).
  categories: numberArrayQuerySchema.pipe(z.array(externalIdSchema)).optional(),
});
const productTextSchema = z
  .string()
  .transform((text, context): z.input<typeof productFieldsSchema> => {
    const [product, price, categories, ...extra] = text.split(":");
    if (price === undefined || extra.length > 0) {
      context.addIssue({
        code: "custom",
        message: "must be <product>:<price> or <product>:<price>:<category>|<category>…",
      });
      return z.NEVER;
    }
    return {
      ...(product?.trim() ? { product: product.trim() } : {}),
      price,
      ...(categories?.trim() ? { categories: categories.split("|") } : {}),
    };
  })
  .pipe(productFieldsSchema);

/**
 * GET /point/product-points/calculate-many query: the products of a page at once, in the order
 * the answer gives them. `items` is a comma-separated list (or repeated), each item as
 * productTextSchema reads it.
 */
export const calculateManyPointsQuerySchema = z.object({
  items: z
    .union([z.string(), z.array(z.string())])
    .transform(listItems)
    .pipe(
      z
        .array(productTextSchema)
        .min(1, "must name at least one product")
        .max(MAX_BATCH_PRODUCTS, `must name at most ${MAX_BATCH_PRODUCTS} products`),
    ),
  domain: domainSchema,
});
export type CalculateManyPointsQuery = z.infer<typeof calculateManyPointsQuerySchema>;
export type CalculateManyPointsQueryInput = z.input<typeof calculateManyPointsQuerySchema>;

export const calculatePointsResponseSchema = z.object({
  /** Whole points one unit of the product earns at this price (club multipliers excluded). */
  points: pointsSchema.min(0),
  /** The kind of rule applied; null when the store has no active rule that matches. */
  type: ruleKindSchema.nullable(),
  /** The applied rule's identifier; null with `type`. */
  id: externalIdSchema.nullable(),
});
export type CalculatePointsResponse = z.infer<typeof calculatePointsResponseSchema>;

/** A product of a batch and its points: what was asked, then calculate's answer for it. */
export const productPointsSchema = calculatePointsResponseSchema.extend({
  product: externalIdSchema.nullable(),
  price: z.number(),
  categories: z.array(externalIdSchema),
});
export type ProductPoints = z.infer<typeof productPointsSchema>;

export const calculateManyPointsResponseSchema = z.object({
  /** One per item asked, in the order asked. */
  items: z.array(productPointsSchema),
});
export type CalculateManyPointsResponse = z.infer<typeof calculateManyPointsResponseSchema>;
