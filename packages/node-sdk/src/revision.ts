import {
  API_REVISION,
  API_REVISIONS,
  type ApiRevision,
  type CustomerHistoryResponseV1,
  type CustomerHistoryResponseV2,
  type RefundOrderRequestV1,
  type RefundOrderRequestV2,
  type RefundOrderResponseV1,
  type RefundOrderResponseV2,
  type RegisterOrderRequestV1,
  type RegisterOrderRequestV2,
  type RegisterOrderResponseV1,
  type RegisterOrderResponseV2,
} from "./generated/contracts.js";

export { API_REVISION, API_REVISIONS, type ApiRevision };

/** The revision a client uses unless told otherwise. */
export type DefaultRevision = typeof API_REVISION;

/*
 * The shapes that differ between revisions, chosen by a revision type parameter. A client
 * pinned to a revision literal (`new LoyaltyClient({ revision: "2026-01-01", ... })`) is typed
 * with that revision's shapes; a call that overrides the revision (`{ revision: "2026-01-01" }`)
 * is typed with the override's. A revision only known as `ApiRevision` gives the union.
 * Only the order contract changed (2026-06-18: `externalRef` became `externalId`); 2026-08-26
 * changed the error format, which the errors of this SDK absorb.
 */

/** Revisions that name an order `externalRef` (text) rather than `externalId`. */
export type LegacyOrderRevision = "2026-01-01";

/** The order to register, as revision `R` names it. */
export type RegisterOrderRequest<R extends ApiRevision = DefaultRevision> =
  R extends LegacyOrderRevision ? RegisterOrderRequestV1 : RegisterOrderRequestV2;

/** The registration response of revision `R`. */
export type RegisterOrderResponse<R extends ApiRevision = DefaultRevision> =
  R extends LegacyOrderRevision ? RegisterOrderResponseV1 : RegisterOrderResponseV2;

/** The refund declaration, as revision `R` names the order. */
export type RefundOrderRequest<R extends ApiRevision = DefaultRevision> =
  R extends LegacyOrderRevision ? RefundOrderRequestV1 : RefundOrderRequestV2;

/** The refund response of revision `R`. */
export type RefundOrderResponse<R extends ApiRevision = DefaultRevision> =
  R extends LegacyOrderRevision ? RefundOrderResponseV1 : RefundOrderResponseV2;

/** A page of a customer's history, with orders named as revision `R` names them. */
export type CustomerHistory<R extends ApiRevision = DefaultRevision> = R extends LegacyOrderRevision
  ? CustomerHistoryResponseV1
  : CustomerHistoryResponseV2;

export function isApiRevision(value: unknown): value is ApiRevision {
  return (API_REVISIONS as readonly unknown[]).includes(value);
}
