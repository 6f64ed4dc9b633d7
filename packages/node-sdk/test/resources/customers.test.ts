import { OPERATION_EXAMPLES, PARAMETER_EXAMPLES } from "@loyalty/shared-types";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  LoyaltyAuthenticationError,
  type CustomerHistoryResponseV1,
  type CustomerHistoryResponseV2,
} from "../../src/index.js";
import { answer, client, json, legacy, problem, useMockApi } from "../support/api.js";

useMockApi();

const example = OPERATION_EXAMPLES.getCustomerHistory.response;

describe("customers.history", () => {
  it("GETs the history with the customer hash and the domain", async () => {
    const seen = answer("get", "/point/user-history/1001", () => json(example["2026-06-18"]));

    const page = await client().customers.history(1001);

    expect(page).toEqual(example["2026-06-18"]);
    expectTypeOf(page).toEqualTypeOf<CustomerHistoryResponseV2>();
    const { url, headers } = seen[0]!;
    // The example's hash was computed with the example's reference and key.
    expect(url.searchParams.get("hash")).toBe(PARAMETER_EXAMPLES.hash);
    expect(url.searchParams.get("domain")).toBe("https://shop.example");
    expect(url.searchParams.has("limit")).toBe(false);
    expect(headers.get("authorization")).toBeNull();
  });

  it("passes the page size and the cursor", async () => {
    const seen = answer("get", "/point/user-history/1001", () => json(example["2026-06-18"]));

    await client().customers.history("1001", { limit: 50, cursor: "OTAwMg" });

    expect(seen[0]!.url.searchParams.get("limit")).toBe("50");
    expect(seen[0]!.url.searchParams.get("cursor")).toBe("OTAwMg");
  });

  it("names orders as 2026-01-01 does when pinned to it", async () => {
    answer("get", "/point/user-history/1001", () => json(example["2026-01-01"]));

    const page = await client({ revision: "2026-01-01" }).customers.history(1001);

    expectTypeOf(page).toEqualTypeOf<CustomerHistoryResponseV1>();
    expect(page.transactions[1]!.order).toEqual({ externalRef: "5001" });
  });

  it("throws an authentication error for a refused hash, in either format", async () => {
    answer("get", "/point/user-history/1001", (_, attempt) =>
      attempt === 0 ? problem("unauthorized", 401) : legacy(401, "Unauthorized", "bad hash"),
    );

    const modern = await client()
      .customers.history(1001)
      .catch((e: unknown) => e);
    const old = await client({ revision: "2026-01-01" })
      .customers.history(1001)
      .catch((e: unknown) => e);

    expect(modern).toBeInstanceOf(LoyaltyAuthenticationError);
    expect(old).toBeInstanceOf(LoyaltyAuthenticationError);
    expect((old as LoyaltyAuthenticationError).reason).toBe("unauthorized");
  });

  it("refuses an id that is not a whole number before sending anything", async () => {
    await expect(client().customers.history("10 01")).rejects.toThrow(/whole number/);
    await expect(client().customers.history(-1)).rejects.toThrow(/whole number/);
  });
});

describe("customers.historyPages", () => {
  it("follows nextCursor until the last page", async () => {
    const pages = ["p2", "p3", null];
    const seen = answer("get", "/point/user-history/1001", (_, attempt) =>
      json({ ...example["2026-06-18"], nextCursor: pages[attempt] ?? null }),
    );

    const cursors: (string | null)[] = [];
    for await (const page of client().customers.historyPages(1001, { limit: 2 })) {
      cursors.push(page.nextCursor);
    }

    expect(cursors).toEqual(["p2", "p3", null]);
    expect(seen.map((r) => r.url.searchParams.get("cursor"))).toEqual([null, "p2", "p3"]);
    expect(seen.every((r) => r.url.searchParams.get("limit") === "2")).toBe(true);
  });

  it("stops requesting when the loop stops", async () => {
    const seen = answer("get", "/point/user-history/1001", () =>
      json({ ...example["2026-06-18"], nextCursor: "more" }),
    );

    for await (const page of client().customers.historyPages(1001)) {
      expect(page.balance).toBe(640);
      break;
    }

    expect(seen).toHaveLength(1);
  });
});
