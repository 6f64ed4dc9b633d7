import { z } from "zod";
import {
  domainSchema,
  externalIdSchema,
  numberArrayQuerySchema,
  numberQuerySchema,
  externalIdTextSchema,
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

export const calculatePointsResponseSchema = z.object({
  /** Whole points one unit of the product earns at this price (club multipliers excluded). */
  points: pointsSchema.min(0),
  /** The kind of rule applied; null when the store has no active rule that matches. */
  type: ruleKindSchema.nullable(),
  /** The applied rule's identifier; null with `type`. */
  id: externalIdSchema.nullable(),
});
export type CalculatePointsResponse = z.infer<typeof calculatePointsResponseSchema>;
