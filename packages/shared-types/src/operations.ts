import type { z } from "zod";
import { recordActivityRequestSchema, recordActivityResponseSchema } from "./activities.js";
import type { EventType } from "./events.js";
import {
  customerAuthQuerySchema,
  customerHistoryQuerySchema,
  customerHistoryResponseV1Schema,
  customerHistoryResponseV2Schema,
  customerPathSchema,
} from "./customers.js";
import type { ErrorReason } from "./errors.js";
import type { ApiRevision } from "./revisions.js";
import { basicRequestHeadersSchema, requestHeadersSchema } from "./headers.js";
import {
  orderSchemasFor,
  registerOrderRequestV1Schema,
  registerOrderRequestV2Schema,
  registerOrderResponseV1Schema,
  registerOrderResponseV2Schema,
  refundOrderRequestV1Schema,
  refundOrderRequestV2Schema,
  refundOrderResponseV1Schema,
  refundOrderResponseV2Schema,
} from "./orders.js";
import {
  calculateManyPointsQuerySchema,
  calculateManyPointsResponseSchema,
  calculatePointsQuerySchema,
  calculatePointsResponseSchema,
} from "./points.js";
import {
  createReferralQuerySchema,
  createReferralRequestSchema,
  createReferralResponseSchema,
  refereeCodeRequestSchema,
  refereeCodeResponseSchema,
} from "./referrals.js";
import {
  claimRefusalSchema,
  claimRewardRequestSchema,
  claimRewardResponseSchema,
  customerCodesResponseSchema,
  rewardListQuerySchema,
  rewardListResponseSchema,
} from "./rewards.js";
import {
  cartWidgetResponseSchema,
  productPointsWidgetResponseSchema,
  programPresentationWidgetResponseSchema,
  launcherWidgetResponseSchema,
  widgetConfigQuerySchema,
} from "./widgets.js";

/** A request or response part that changed shape: the entry of the latest revision at or before
 * the request's applies. */
export type RevisionedSchema = z.ZodType | { "2026-01-01": z.ZodType; "2026-06-18": z.ZodType };

/** How an operation authenticates its caller: the spec's three mechanisms, and the bearer
 * token (JWT) of the back-office. */
export type AuthMechanism = "basic" | "hmac" | "public" | "bearer";

export interface OperationDefinition {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** OpenAPI-style path template. */
  path: string;
  auth: AuthMechanism;
  summary: string;
  successStatus: 200 | 201 | 204;
  /** Groups operations in the OpenAPI document. */
  tag?: string;
  /** Bearer operations: "service" needs a token for the whole service, "store" accepts a
   * token for the store in the path too. */
  scope?: "service" | "store";
  /** Every reason the operation may answer besides those of COMMON_ERROR_REASONS, which
   * every operation may answer. */
  errors: readonly ErrorReason[];
  /** Emitted to the outbox and the store's webhooks. */
  events: readonly EventType[];
  headers: z.ZodType;
  pathParams?: z.ZodType;
  query?: z.ZodType;
  /**
   * The largest request body read, in bytes: room for any real client's body (an order of
   * 1,000 lines), far below what the schema's every maximum at once would add up to; a larger
   * one is refused as validation-failed before it is read. Absent: the server's BODY_LIMIT.
   */
  maxBodyBytes?: number;
  /** Request body per revision: the latest entry whose revision is <= the request's applies. */
  body?: RevisionedSchema;
  /**
   * The body's schema for one revision, when it is finer than `body` says (the refusal of a
   * renamed field names the revision asked for). The server parses with it; `body` documents.
   */
  bodyFor?: (revision: ApiRevision) => z.ZodType;
  /** Absent for 204. */
  response?: RevisionedSchema;
  /** A non-problem refusal body (claim: 404 with `code: null`). */
  refusal?: z.ZodType;
}

/** The operations of the spec, keyed by the name the SDK and the OpenAPI document use. */
export const OPERATIONS = {
  registerOrder: {
    method: "POST",
    path: "/api/order/register",
    auth: "basic",
    tag: "Orders",
    summary: "Register an order; its points are computed asynchronously",
    successStatus: 201,
    errors: ["validation-failed", "unauthorized"],
    headers: basicRequestHeadersSchema,
    events: ["ORDER_REGISTERED", "POINTS_EARNED"],
    // Up to 1,000 lines of about 500 bytes (ids, a name, a SKU, a few categories).
    maxBodyBytes: 512 * 1024,
    body: {
      "2026-01-01": registerOrderRequestV1Schema,
      "2026-06-18": registerOrderRequestV2Schema,
    },
    bodyFor: (revision) => orderSchemasFor(revision).register,
    response: {
      "2026-01-01": registerOrderResponseV1Schema,
      "2026-06-18": registerOrderResponseV2Schema,
    },
  },
  recordActivity: {
    method: "POST",
    path: "/api/activity",
    auth: "basic",
    tag: "Activities",
    summary:
      "Reward something a customer did beyond ordering (sign-up, birthday, review, newsletter, social follow, a store's own kind); credited once per activityId",
    successStatus: 201,
    errors: ["validation-failed", "unauthorized"],
    headers: basicRequestHeadersSchema,
    events: ["POINTS_EARNED"],
    maxBodyBytes: 16 * 1024,
    body: recordActivityRequestSchema,
    response: recordActivityResponseSchema,
  },
  refundOrder: {
    method: "POST",
    path: "/api/order/refund",
    auth: "basic",
    tag: "Orders",
    summary: "Declare an order cancelled, refunded or partially refunded (cumulative amounts)",
    successStatus: 201,
    errors: ["validation-failed", "unauthorized"],
    headers: basicRequestHeadersSchema,
    events: ["ORDER_REFUNDED", "POINTS_DEDUCTED"],
    // Up to 1,000 refunded lines, as an order.
    maxBodyBytes: 512 * 1024,
    body: { "2026-01-01": refundOrderRequestV1Schema, "2026-06-18": refundOrderRequestV2Schema },
    bodyFor: (revision) => orderSchemasFor(revision).refund,
    response: {
      "2026-01-01": refundOrderResponseV1Schema,
      "2026-06-18": refundOrderResponseV2Schema,
    },
  },
  calculateProductPoints: {
    method: "GET",
    path: "/point/product-points/calculate",
    auth: "public",
    tag: "Points",
    summary: "Points a product earns under the store's active attribution rules",
    successStatus: 200,
    errors: ["validation-failed", "not-found"],
    headers: requestHeadersSchema,
    events: [],
    query: calculatePointsQuerySchema,
    response: calculatePointsResponseSchema,
  },
  calculateManyProductPoints: {
    method: "GET",
    path: "/point/product-points/calculate-many",
    auth: "public",
    tag: "Points",
    summary:
      "Points of many products at once (a collection page's), each as calculate computes it, in the order asked",
    successStatus: 200,
    errors: ["validation-failed", "not-found"],
    headers: requestHeadersSchema,
    events: [],
    query: calculateManyPointsQuerySchema,
    response: calculateManyPointsResponseSchema,
  },
  createReferral: {
    method: "POST",
    path: "/point/referral",
    auth: "hmac",
    tag: "Referrals",
    summary: "Refer a person by email and send them the invitation",
    successStatus: 201,
    errors: [
      "validation-failed",
      "referral-customer-already-exists",
      "referral-already-pending",
      "referral-already-completed",
      "unauthorized",
    ],
    headers: requestHeadersSchema,
    events: [],
    query: createReferralQuerySchema,
    // An email and two names.
    maxBodyBytes: 8 * 1024,
    body: createReferralRequestSchema,
    response: createReferralResponseSchema,
  },
  getCustomerHistory: {
    method: "GET",
    path: "/point/user-history/{externalId}",
    auth: "hmac",
    tag: "Customers",
    summary: "A customer's balance, transactions (newest first) and club",
    successStatus: 200,
    errors: ["unauthorized"],
    headers: requestHeadersSchema,
    events: [],
    pathParams: customerPathSchema,
    query: customerHistoryQuerySchema,
    response: {
      "2026-01-01": customerHistoryResponseV1Schema,
      "2026-06-18": customerHistoryResponseV2Schema,
    },
  },
  claimReward: {
    method: "POST",
    path: "/reward/claim/{externalId}",
    auth: "hmac",
    tag: "Rewards",
    summary: "Exchange points for a single-use voucher code",
    successStatus: 201,
    errors: [
      "validation-failed",
      "unauthorized",
      "not-found",
      "platform-credentials-rejected",
      "platform-resource-not-found",
      "platform-request-rejected",
      "platform-unavailable",
    ],
    headers: requestHeadersSchema,
    events: ["REWARD_OBTAINED"],
    pathParams: customerPathSchema,
    query: customerAuthQuerySchema,
    // A reward id.
    maxBodyBytes: 1024,
    body: claimRewardRequestSchema,
    response: claimRewardResponseSchema,
    refusal: claimRefusalSchema,
  },
  listCustomerCodes: {
    method: "GET",
    path: "/reward/codes/{externalId}",
    auth: "hmac",
    tag: "Rewards",
    summary:
      "The reward codes a customer can still use (claimed, not expired, not used by an order), newest first",
    successStatus: 200,
    errors: ["unauthorized"],
    headers: requestHeadersSchema,
    events: [],
    pathParams: customerPathSchema,
    query: customerAuthQuerySchema,
    response: customerCodesResponseSchema,
  },
  listRewards: {
    method: "GET",
    path: "/reward/list",
    auth: "public",
    tag: "Rewards",
    summary: "Rewards purchasable with points, by ascending triggerValue",
    successStatus: 200,
    errors: ["not-found"],
    headers: requestHeadersSchema,
    events: [],
    query: rewardListQuerySchema,
    response: rewardListResponseSchema,
  },
  getRefereeCode: {
    method: "POST",
    path: "/reward/referral/get-referee-code",
    auth: "public",
    tag: "Referrals",
    summary: "The referred person's discount code, from the referral hash",
    successStatus: 201,
    errors: [
      "validation-failed",
      "not-found",
      "platform-credentials-rejected",
      "platform-resource-not-found",
      "platform-request-rejected",
      "platform-unavailable",
    ],
    headers: requestHeadersSchema,
    events: [],
    // A referral hash.
    maxBodyBytes: 1024,
    body: refereeCodeRequestSchema,
    response: refereeCodeResponseSchema,
  },
  getCartWidget: {
    method: "GET",
    path: "/store/widget/cart",
    auth: "public",
    tag: "Widgets",
    summary: "Cart widget configuration",
    successStatus: 200,
    errors: ["not-found"],
    headers: requestHeadersSchema,
    events: [],
    query: widgetConfigQuerySchema,
    response: cartWidgetResponseSchema,
  },
  getProductPointsWidget: {
    method: "GET",
    path: "/store/widget/product-points",
    auth: "public",
    tag: "Widgets",
    summary: "Product-points widget configuration",
    successStatus: 200,
    errors: ["not-found"],
    headers: requestHeadersSchema,
    events: [],
    query: widgetConfigQuerySchema,
    response: productPointsWidgetResponseSchema,
  },
  getProgramPresentationWidget: {
    method: "GET",
    path: "/store/widget/program-presentation",
    auth: "public",
    tag: "Widgets",
    summary: "Programme presentation widget configuration",
    successStatus: 200,
    errors: ["not-found"],
    headers: requestHeadersSchema,
    events: [],
    query: widgetConfigQuerySchema,
    response: programPresentationWidgetResponseSchema,
  },
  getLauncherWidget: {
    method: "GET",
    path: "/store/widget/launcher",
    auth: "public",
    tag: "Widgets",
    summary: "Launcher widget configuration, with the referral programme's offer (beyond the spec)",
    successStatus: 200,
    errors: ["not-found"],
    headers: requestHeadersSchema,
    events: [],
    query: widgetConfigQuerySchema,
    response: launcherWidgetResponseSchema,
  },
} as const satisfies Record<string, OperationDefinition>;

export type OperationName = keyof typeof OPERATIONS;

/**
 * The reasons every operation may answer. `rate-limited` (429, with `RateLimit`,
 * `RateLimit-Policy` and `Retry-After` headers) came after the spec's catalogue.
 */
export const COMMON_ERROR_REASONS = [
  "invalid-revision-header",
  "unknown-api-revision",
  "rate-limited",
  "internal-server-error",
] as const satisfies readonly ErrorReason[];
