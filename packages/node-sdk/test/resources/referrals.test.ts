import { OPERATION_EXAMPLES, PARAMETER_EXAMPLES } from "@loyalty/shared-types";
import { describe, expect, it } from "vitest";
import { LoyaltyNotFoundError, LoyaltyValidationError } from "../../src/index.js";
import { answer, client, json, legacy, problem, useMockApi } from "../support/api.js";

useMockApi();

const create = OPERATION_EXAMPLES.createReferral;
const referee = OPERATION_EXAMPLES.getRefereeCode;

describe("referrals.create", () => {
  it("POSTs the referral with the referrer's id, hash and domain in the query", async () => {
    const seen = answer("post", "/point/referral", () => json(create.response, 201));

    const referral = await client().referrals.create(1001, create.request);

    expect(referral).toEqual(create.response);
    const { url, body, headers } = seen[0]!;
    expect(Object.fromEntries(url.searchParams)).toEqual({
      externalId: "1001",
      hash: PARAMETER_EXAMPLES.hash,
      domain: "https://shop.example",
    });
    expect(body).toEqual(create.request);
    expect(headers.get("authorization")).toBeNull();
  });

  it("throws a validation error naming the refusal", async () => {
    answer("post", "/point/referral", () => problem("referral-already-pending", 400));

    const error = await client()
      .referrals.create(1001, create.request)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LoyaltyValidationError);
    expect((error as LoyaltyValidationError).reason).toBe("referral-already-pending");
  });

  it("throws a validation error from the legacy body too, without a reason", async () => {
    answer("post", "/point/referral", () =>
      legacy(400, "Bad Request", "The address was already referred."),
    );

    const error = await client({ revision: "2026-06-18" })
      .referrals.create(1001, create.request)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LoyaltyValidationError);
    expect((error as LoyaltyValidationError).message).toBe("The address was already referred.");
    expect((error as LoyaltyValidationError).reason).toBeUndefined();
  });
});

describe("referrals.getRefereeCode", () => {
  it("POSTs the referral hash, unauthenticated", async () => {
    const seen = answer("post", "/reward/referral/get-referee-code", () =>
      json(referee.response, 201),
    );

    const code = await client().referrals.getRefereeCode(referee.request);

    expect(code).toEqual(referee.response);
    expect(seen[0]!.body).toEqual(referee.request);
    expect(seen[0]!.url.search).toBe("");
    expect(seen[0]!.headers.get("authorization")).toBeNull();
  });

  it("throws not found for an unknown hash", async () => {
    answer("post", "/reward/referral/get-referee-code", () => problem("not-found", 404));

    await expect(
      client().referrals.getRefereeCode({ referralHash: "nope" }),
    ).rejects.toBeInstanceOf(LoyaltyNotFoundError);
  });
});
