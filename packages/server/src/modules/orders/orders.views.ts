import type {
  RefundOrderRequestV1,
  RefundOrderRequestV2,
  RegisterOrderRequestV1,
  RegisterOrderRequestV2,
  RegisterOrderResponseV1,
  RegisterOrderResponseV2,
  RefundOrderResponseV1,
  RefundOrderResponseV2,
} from "@loyalty/shared-types";

/**
 * The answers of the order operations, per revision: the order is named as the request named
 * it, `externalRef` in 2026-01-01, `externalId` (with its `externalReference`) from 2026-06-18.
 */
export function registrationView(
  order: RegisterOrderRequestV1 | RegisterOrderRequestV2,
  registration: { status: RegisterOrderResponseV2["status"]; receivedAt: Date },
): RegisterOrderResponseV1 | RegisterOrderResponseV2 {
  const state = { status: registration.status, receivedAt: registration.receivedAt.toISOString() };
  return "externalRef" in order && order.externalRef !== undefined
    ? { externalRef: order.externalRef, ...state }
    : {
        externalId: order.externalId,
        externalReference: order.externalReference ?? null,
        ...state,
      };
}

export function refundView(
  refund: RefundOrderRequestV1 | RefundOrderRequestV2,
  declared: { receivedAt: Date },
): RefundOrderResponseV1 | RefundOrderResponseV2 {
  const state = { status: "pending" as const, receivedAt: declared.receivedAt.toISOString() };
  return "externalRef" in refund && refund.externalRef !== undefined
    ? { externalRef: refund.externalRef, ...state }
    : { externalId: refund.externalId, ...state };
}
