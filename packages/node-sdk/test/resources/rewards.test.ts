import { OPERATION_EXAMPLES, PARAMETER_EXAMPLES } from "@loyalty/shared-types";
import { describe, expect, it } from "vitest";
import {
  LoyaltyAuthenticationError,
  LoyaltyNotFoundError,
  LoyaltyPlatformError,
  type ClaimResult,
} from "../../src/index.js";
import { answer, client, json, legacy, problem, useMockApi } from "../support/api.js";

useMockApi();

const example = OPERATION_EXAMPLES.claimReward;

describe("rewards.list", () => {
  it("GETs the catalogue of the store's domain", async () => {
    const seen = answer("get", "/reward/list", () => json(OPERATION_EXAMPLES.listRewards.response));

    const rewards = await client().rewards.list();

    expect(rewards).toEqual(OPERATION_EXAMPLES.listRewards.response);
    expect(seen[0]!.url.searchParams.get("domain")).toBe("https://shop.example");
  });
});

describe("rewards.claim", () => {
  it("POSTs the claim with the customer hash and returns the code", async () => {
    const seen = answer("post", "/reward/claim/1001", () => json(example.response, 201));

    const result = await client().rewards.claim(1001, example.request);

    expect(result).toEqual(example.response);
    const { url, body, headers } = seen[0]!;
    expect(url.searchParams.get("hash")).toBe(PARAMETER_EXAMPLES.hash);
    expect(url.searchParams.get("domain")).toBe("https://shop.example");
    expect(body).toEqual({ rewardId: 12 });
    expect(headers.get("idempotency-key")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("returns a refused claim as a result, not an error", async () => {
    const seen = answer("post", "/reward/claim/1001", () => json(example.refusal, 404));

    const result: ClaimResult = await client().rewards.claim(1001, example.request);

    expect(result).toEqual({ code: null, reason: "insufficient-balance" });
    expect(result.code === null && result.reason).toBe("insufficient-balance");
    // A refusal is an answer: it is not retried.
    expect(seen).toHaveLength(1);
  });

  it("returns the refusal in the legacy revisions too", async () => {
    answer("post", "/reward/claim/1001", () =>
      json({ code: null, reason: "voucher-inactive" }, 404),
    );

    const result = await client({ revision: "2026-01-01" }).rewards.claim(1001, { rewardId: 12 });

    expect(result).toEqual({ code: null, reason: "voucher-inactive" });
  });

  it("throws not found for a customer the store does not have (a problem, not a refusal)", async () => {
    answer("post", "/reward/claim/1001", () => problem("not-found", 404));

    await expect(client().rewards.claim(1001, { rewardId: 12 })).rejects.toBeInstanceOf(
      LoyaltyNotFoundError,
    );
  });

  it("throws a platform error when the store's platform refuses", async () => {
    answer("post", "/reward/claim/1001", () => problem("platform-credentials-rejected", 422));

    const error = await client()
      .rewards.claim(1001, { rewardId: 12 })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LoyaltyPlatformError);
    expect((error as LoyaltyPlatformError).reason).toBe("platform-credentials-rejected");
  });
});

const codes = OPERATION_EXAMPLES.listCustomerCodes.response;

describe("rewards.listCodes", () => {
  it("GETs the customer's codes with the customer hash and returns them", async () => {
    const seen = answer("get", "/reward/codes/1001", () => json(codes));

    const result = await client().rewards.listCodes(1001);

    expect(result).toEqual(codes.codes);
    const { url, headers } = seen[0]!;
    expect(url.searchParams.get("hash")).toBe(PARAMETER_EXAMPLES.hash);
    expect(url.searchParams.get("domain")).toBe("https://shop.example");
    expect(headers.get("authorization")).toBeNull();
    expect(headers.get("idempotency-key")).toBeNull();
  });

  it("throws an authentication error for a refused hash, in either format", async () => {
    answer("get", "/reward/codes/1001", (_, attempt) =>
      attempt === 0 ? problem("unauthorized", 401) : legacy(401, "Unauthorized", "bad hash"),
    );

    const modern = await client()
      .rewards.listCodes(1001)
      .catch((e: unknown) => e);
    const old = await client({ revision: "2026-01-01" })
      .rewards.listCodes("1001")
      .catch((e: unknown) => e);

    expect(modern).toBeInstanceOf(LoyaltyAuthenticationError);
    expect(old).toBeInstanceOf(LoyaltyAuthenticationError);
  });

  it("refuses an id that is not a whole number before sending anything", async () => {
    const seen = answer("get", "/reward/codes/1001", () => json(codes));
    await expect(client().rewards.listCodes("10 01")).rejects.toThrow(/whole number/);
    expect(seen).toHaveLength(0);
  });
});
