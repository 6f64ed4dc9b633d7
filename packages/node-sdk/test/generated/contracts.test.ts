import { readFileSync } from "node:fs";
import type * as Shared from "@loyalty/shared-types";
import { describe, expect, expectTypeOf, it } from "vitest";
import { CONTRACTS_FILE, generateContracts } from "../../scripts/generate-contracts.js";
import type * as Generated from "../../src/generated/contracts.js";

describe("src/generated/contracts.ts", () => {
  it("is what shared-types generates now (run `pnpm generate` when it is not)", async () => {
    expect(readFileSync(CONTRACTS_FILE, "utf8")).toBe(await generateContracts());
  }, 30_000);

  it("declares shared-types' types, printed out", () => {
    expectTypeOf<Generated.RegisterOrderRequestV1>().toEqualTypeOf<Shared.RegisterOrderRequestV1Input>();
    expectTypeOf<Generated.RegisterOrderRequestV2>().toEqualTypeOf<Shared.RegisterOrderRequestV2Input>();
    expectTypeOf<Generated.RefundOrderRequestV1>().toEqualTypeOf<Shared.RefundOrderRequestV1Input>();
    expectTypeOf<Generated.RefundOrderRequestV2>().toEqualTypeOf<Shared.RefundOrderRequestV2Input>();
    expectTypeOf<Generated.RegisterOrderResponseV1>().toEqualTypeOf<Shared.RegisterOrderResponseV1>();
    expectTypeOf<Generated.RegisterOrderResponseV2>().toEqualTypeOf<Shared.RegisterOrderResponseV2>();
    expectTypeOf<Generated.RefundOrderResponseV1>().toEqualTypeOf<Shared.RefundOrderResponseV1>();
    expectTypeOf<Generated.RefundOrderResponseV2>().toEqualTypeOf<Shared.RefundOrderResponseV2>();
    expectTypeOf<Generated.CustomerHistoryResponseV1>().toEqualTypeOf<Shared.CustomerHistoryResponseV1>();
    expectTypeOf<Generated.CustomerHistoryResponseV2>().toEqualTypeOf<Shared.CustomerHistoryResponseV2>();
    expectTypeOf<Generated.CalculatePointsResponse>().toEqualTypeOf<Shared.CalculatePointsResponse>();
    expectTypeOf<Generated.Reward>().toEqualTypeOf<Shared.Reward>();
    expectTypeOf<Generated.ClaimRewardRequest>().toEqualTypeOf<Shared.ClaimRewardRequest>();
    expectTypeOf<Generated.ClaimRewardResponse>().toEqualTypeOf<Shared.ClaimRewardResponse>();
    expectTypeOf<Generated.ClaimRefusal>().toEqualTypeOf<Shared.ClaimRefusal>();
    expectTypeOf<Generated.CreateReferralRequest>().toEqualTypeOf<Shared.CreateReferralRequest>();
    expectTypeOf<Generated.CreateReferralResponse>().toEqualTypeOf<Shared.CreateReferralResponse>();
    expectTypeOf<Generated.RefereeCodeRequest>().toEqualTypeOf<Shared.RefereeCodeRequest>();
    expectTypeOf<Generated.RefereeCodeResponse>().toEqualTypeOf<Shared.RefereeCodeResponse>();
    expectTypeOf<Generated.CartWidgetResponse>().toEqualTypeOf<Shared.CartWidgetResponse>();
    expectTypeOf<Generated.ProductPointsWidgetResponse>().toEqualTypeOf<Shared.ProductPointsWidgetResponse>();
    expectTypeOf<Generated.ProgramPresentationWidgetResponse>().toEqualTypeOf<Shared.ProgramPresentationWidgetResponse>();
    expectTypeOf<Generated.Problem>().toEqualTypeOf<Shared.Problem>();
    expectTypeOf<Generated.LegacyError>().toEqualTypeOf<Shared.LegacyError>();
    expectTypeOf<Generated.WebhookEvent>().toEqualTypeOf<Shared.WebhookEvent>();
    expectTypeOf<Generated.ErrorReason>().toEqualTypeOf<Shared.ErrorReason>();
    expectTypeOf<Generated.EventType>().toEqualTypeOf<Shared.EventType>();
  });
});
