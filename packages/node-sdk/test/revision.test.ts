import {
  API_REVISIONS as SHARED_API_REVISIONS,
  ERROR_REASONS,
  LATEST_REVISION,
  PROBLEM_CONTENT_TYPE as SHARED_PROBLEM_CONTENT_TYPE,
  type ApiRevision as SharedApiRevision,
  type CustomerHistoryResponseV1 as SharedHistoryV1,
  type CustomerHistoryResponseV2 as SharedHistoryV2,
  type RefundOrderRequestV1Input,
  type RefundOrderRequestV2Input,
  type RegisterOrderRequestV1Input,
  type RegisterOrderRequestV2Input,
  type RegisterOrderResponseV1 as SharedRegisterResponseV1,
  type RegisterOrderResponseV2 as SharedRegisterResponseV2,
} from "@loyalty/shared-types";
import { describe, expect, expectTypeOf, it } from "vitest";
import { PROBLEM_CONTENT_TYPE, REASON_BY_STATUS } from "../src/generated/contracts.js";
import {
  API_REVISION,
  API_REVISIONS,
  type ApiRevision,
  type CustomerHistory,
  type RefundOrderRequest,
  type RegisterOrderRequest,
  type RegisterOrderResponse,
} from "../src/index.js";
import { isApiRevision } from "../src/revision.js";

describe("the SDK's constants", () => {
  it("are shared-types' values", () => {
    expect(API_REVISION).toBe(LATEST_REVISION);
    expect(API_REVISIONS).toEqual(SHARED_API_REVISIONS);
    expect(PROBLEM_CONTENT_TYPE).toBe(SHARED_PROBLEM_CONTENT_TYPE);
    expectTypeOf<ApiRevision>().toEqualTypeOf<SharedApiRevision>();
  });

  it("know the reason a legacy status implies exactly when the status has only one", () => {
    for (const [status, reason] of Object.entries(REASON_BY_STATUS)) {
      const reasons = Object.entries(ERROR_REASONS).filter(([, r]) => r.status === Number(status));
      expect(reasons.map(([name]) => name)).toEqual([reason]);
    }
    const statuses = new Set(Object.values(ERROR_REASONS).map((r) => r.status));
    for (const status of statuses) {
      const count = Object.values(ERROR_REASONS).filter((r) => r.status === status).length;
      expect(REASON_BY_STATUS[status] !== undefined).toBe(count === 1);
    }
  });

  it("recognise the revisions", () => {
    expect(API_REVISIONS.every(isApiRevision)).toBe(true);
    expect(isApiRevision("2026-08-27")).toBe(false);
    expect(isApiRevision(undefined)).toBe(false);
  });
});

describe("the shapes of each revision", () => {
  it("2026-01-01 names the order externalRef", () => {
    expectTypeOf<RegisterOrderRequest<"2026-01-01">>().toEqualTypeOf<RegisterOrderRequestV1Input>();
    expectTypeOf<RegisterOrderResponse<"2026-01-01">>().toEqualTypeOf<SharedRegisterResponseV1>();
    expectTypeOf<RefundOrderRequest<"2026-01-01">>().toEqualTypeOf<RefundOrderRequestV1Input>();
    expectTypeOf<CustomerHistory<"2026-01-01">>().toEqualTypeOf<SharedHistoryV1>();
  });

  it("2026-06-18 and 2026-08-26 name it externalId", () => {
    for (const _ of ["2026-06-18", "2026-08-26"] as const) {
      expectTypeOf<RegisterOrderRequest<typeof _>>().toEqualTypeOf<RegisterOrderRequestV2Input>();
      expectTypeOf<RegisterOrderResponse<typeof _>>().toEqualTypeOf<SharedRegisterResponseV2>();
      expectTypeOf<RefundOrderRequest<typeof _>>().toEqualTypeOf<RefundOrderRequestV2Input>();
      expectTypeOf<CustomerHistory<typeof _>>().toEqualTypeOf<SharedHistoryV2>();
    }
    expectTypeOf<RegisterOrderRequest>().toEqualTypeOf<RegisterOrderRequestV2Input>();
  });

  it("a revision known only as ApiRevision gives either", () => {
    expectTypeOf<RegisterOrderRequest<ApiRevision>>().toEqualTypeOf<
      RegisterOrderRequestV1Input | RegisterOrderRequestV2Input
    >();
  });
});
