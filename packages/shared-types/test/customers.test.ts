import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  API_REVISIONS,
  customerHistoryQuerySchema,
  customerHistoryResponseSchemaFor,
  customerHistoryResponseV1Schema,
  customerHistoryResponseV2Schema,
  type CustomerHistoryResponseV1,
  type CustomerHistoryResponseV2,
} from "../src/index.js";

const auth = { hash: "ab".repeat(64), domain: "https://shop.example" };

describe("customer history query", () => {
  it("reads the HMAC parameters and the externalId repeated from the path", () => {
    expect(customerHistoryQuerySchema.parse({ ...auth, externalId: "42" })).toEqual({
      ...auth,
      externalId: 42,
      limit: 20,
    });
    expect(customerHistoryQuerySchema.safeParse({ domain: auth.domain }).success).toBe(false);
  });

  it.each([
    [undefined, 20],
    ["1", 1],
    ["100", 100],
    [" 7 ", 7],
    ["0", 1],
    ["-3", 1],
    ["1000", 100],
    ["99999999999999999999", 100],
    ["2.5", 2],
    ["abc", 20],
    ["", 20],
    ["1e2", 20],
    [["5", "6"], 20],
  ])("reads limit %j as %j, never refusing it", (limit, expected) => {
    expect(customerHistoryQuerySchema.parse({ ...auth, limit }).limit).toBe(expected);
  });

  it("passes the cursor through, and ignores a repeated one", () => {
    expect(customerHistoryQuerySchema.parse({ ...auth, cursor: "MTI" }).cursor).toBe("MTI");
    expect(customerHistoryQuerySchema.parse({ ...auth, cursor: "" }).cursor).toBe("");
    expect(customerHistoryQuerySchema.parse({ ...auth, cursor: ["a", "b"] }).cursor).toBe(
      undefined,
    );
  });

  it("documents limit and cursor as optional text in the JSON Schema", () => {
    const json = z.toJSONSchema(customerHistoryQuerySchema, { io: "input" });
    expect(json.required).toEqual(["hash", "domain"]);
    expect(json.properties?.["cursor"]).toEqual({ type: "string" });
    expect(json.properties?.["limit"]).toMatchObject({ type: "string" });
  });
});

const history = {
  externalId: 3081,
  balance: -35,
  availablePoints: -35,
  pendingPoints: 0,
  negativeBalance: { points: 35, reason: "refund-after-spending" as const, transactionId: 14 },
  nextExpiry: null,
  earnedLast12Months: 255,
  club: { id: 2, name: "Silver", threshold: 200, multiplier: 1.25 },
  nextClub: { id: 3, name: "Gold", threshold: 300, multiplier: 1.5, pointsToReach: 45 },
  clubQualification: {
    basis: "points-earned" as const,
    period: "rolling-12-months" as const,
    downgrade: "immediately" as const,
    figure: 255,
    periodStart: "2025-03-10T00:00:00.000Z",
    keptUntil: null,
  },
  nextCursor: "MTI",
};
const transaction = {
  id: 12,
  kind: "earn",
  points: 300,
  balanceAfter: 400,
  rewardId: null,
  voucherCode: null,
  referralId: null,
  activity: null,
  note: null,
  createdAt: "2026-03-10T00:00:00.000Z",
  pendingPoints: 0,
  availableAt: null,
  pending: false,
} as const;

describe("customer history response, revision 2026-01-01", () => {
  it("names the order by its externalRef", () => {
    const body: CustomerHistoryResponseV1 = {
      ...history,
      transactions: [
        { ...transaction, order: { externalRef: "A-1001" } },
        { ...transaction, id: 11, kind: "manual_adjustment", order: null, note: "Goodwill" },
      ],
    };
    expect(customerHistoryResponseV1Schema.parse(body)).toEqual(body);
  });

  it("refuses the later revisions' order fields", () => {
    const later = { externalId: 1001, externalReference: "#1001" };
    const result = customerHistoryResponseV1Schema.safeParse({
      ...history,
      transactions: [{ ...transaction, order: later }],
    });
    expect(result.error?.issues.map((issue) => issue.path.join("."))).toEqual([
      "transactions.0.order.externalRef",
    ]);
  });
});

describe("customer history response, revision 2026-06-18 and later", () => {
  it("names the order by externalId, a number when it is one, and externalReference", () => {
    const body: CustomerHistoryResponseV2 = {
      ...history,
      transactions: [
        { ...transaction, order: { externalId: 7_400_123_456, externalReference: "#1001" } },
        { ...transaction, id: 11, order: { externalId: "A-1001", externalReference: null } },
      ],
    };
    expect(customerHistoryResponseV2Schema.parse(body)).toEqual(body);
  });

  it("requires externalReference, null when the store gave none", () => {
    const result = customerHistoryResponseV2Schema.safeParse({
      ...history,
      transactions: [{ ...transaction, order: { externalId: 1001 } }],
    });
    expect(result.error?.issues.map((issue) => issue.path.join("."))).toEqual([
      "transactions.0.order.externalReference",
    ]);
  });

  it("refuses the 2026-01-01 order field", () => {
    const result = customerHistoryResponseV2Schema.safeParse({
      ...history,
      transactions: [{ ...transaction, order: { externalRef: "A-1001" } }],
    });
    expect(result.success).toBe(false);
  });
});

describe("customerHistoryResponseSchemaFor", () => {
  it("gives 2026-01-01 its contract and every later revision that of 2026-06-18", () => {
    expect(API_REVISIONS.map((revision) => customerHistoryResponseSchemaFor(revision))).toEqual([
      customerHistoryResponseV1Schema,
      customerHistoryResponseV2Schema,
      customerHistoryResponseV2Schema,
    ]);
  });
});
