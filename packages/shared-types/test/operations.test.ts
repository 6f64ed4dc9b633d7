import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ADMIN_OPERATIONS,
  API_REVISIONS,
  COMMON_ERROR_REASONS,
  ERROR_REASONS,
  EVENT_TYPES,
  OPERATIONS,
  customerHistoryResponseSchemaFor,
  orderSchemasFor,
  type OperationDefinition,
} from "../src/index.js";

const operations: [string, OperationDefinition][] = Object.entries(OPERATIONS);

/** The spec's operations: method, path and authentication. */
const SPEC_OPERATIONS = {
  registerOrder: ["POST", "/api/order/register", "basic"],
  refundOrder: ["POST", "/api/order/refund", "basic"],
  calculateProductPoints: ["GET", "/point/product-points/calculate", "public"],
  createReferral: ["POST", "/point/referral", "hmac"],
  getCustomerHistory: ["GET", "/point/user-history/{externalId}", "hmac"],
  claimReward: ["POST", "/reward/claim/{externalId}", "hmac"],
  listRewards: ["GET", "/reward/list", "public"],
  getRefereeCode: ["POST", "/reward/referral/get-referee-code", "public"],
  getCartWidget: ["GET", "/store/widget/cart", "public"],
  getProductPointsWidget: ["GET", "/store/widget/product-points", "public"],
  getProgramPresentationWidget: ["GET", "/store/widget/program-presentation", "public"],
} as const;

/** The operations beyond the spec (DESIGN.md: additive, off until a store uses them). */
const EXTENSIONS = {
  recordActivity: ["POST", "/api/activity", "basic"],
  calculateManyProductPoints: ["GET", "/point/product-points/calculate-many", "public"],
  listCustomerCodes: ["GET", "/reward/codes/{externalId}", "hmac"],
  getLauncherWidget: ["GET", "/store/widget/launcher", "public"],
} as const;

describe("OPERATIONS", () => {
  it("holds the spec's 11 operations with their method, path and authentication, and the extensions", () => {
    const actual = Object.fromEntries(
      operations.map(([name, op]) => [name, [op.method, op.path, op.auth]]),
    );
    expect(actual).toEqual({ ...SPEC_OPERATIONS, ...EXTENSIONS });
  });

  it("gives each operation a distinct method and path", () => {
    const routes = operations.map(([, op]) => `${op.method} ${op.path}`);
    expect(new Set(routes).size).toBe(11 + Object.keys(EXTENSIONS).length);
  });

  it("answers 201 to the POST operations and 200 to the GET ones", () => {
    for (const [name, op] of operations) {
      expect(op.successStatus, name).toBe(op.method === "POST" ? 201 : 200);
    }
  });

  it("lists only reasons of ERROR_REASONS, once each, without the common ones", () => {
    for (const [name, op] of operations) {
      for (const reason of op.errors) {
        expect(Object.keys(ERROR_REASONS), `${name}: ${reason}`).toContain(reason);
        expect(COMMON_ERROR_REASONS as readonly string[], `${name}: ${reason}`).not.toContain(
          reason,
        );
      }
      expect(new Set(op.errors).size, name).toBe(op.errors.length);
    }
    for (const reason of COMMON_ERROR_REASONS) {
      expect(Object.keys(ERROR_REASONS)).toContain(reason);
    }
  });

  it("answers every declared reason from some operation", () => {
    const answered = new Set<string>([
      ...COMMON_ERROR_REASONS,
      ...operations.flatMap(([, op]) => op.errors),
      ...Object.values(ADMIN_OPERATIONS).flatMap((op) => op.errors),
    ]);
    expect([...answered].sort()).toEqual(Object.keys(ERROR_REASONS).sort());
  });

  it("lets exactly the authenticated operations answer unauthorized", () => {
    for (const [name, op] of operations) {
      expect(op.errors.includes("unauthorized"), name).toBe(op.auth !== "public");
    }
  });

  it("lets every operation with a body answer validation-failed", () => {
    for (const [name, op] of operations) {
      if (op.body) expect(op.errors, name).toContain("validation-failed");
    }
  });

  it("emits only the spec's events", () => {
    for (const [name, op] of operations) {
      for (const event of op.events) expect(EVENT_TYPES, name).toContain(event);
    }
    expect(OPERATIONS.registerOrder.events).toEqual(["ORDER_REGISTERED", "POINTS_EARNED"]);
    expect(OPERATIONS.refundOrder.events).toEqual(["ORDER_REFUNDED", "POINTS_DEDUCTED"]);
    expect(OPERATIONS.claimReward.events).toEqual(["REWARD_OBTAINED"]);
  });

  it("validates the parameters named in each path", () => {
    for (const [name, op] of operations) {
      const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      if (names.length === 0) {
        expect(op.pathParams, name).toBeUndefined();
        continue;
      }
      expect(op.pathParams, name).toBeInstanceOf(z.ZodObject);
      const shape = (op.pathParams as z.ZodObject).shape;
      expect(Object.keys(shape), name).toEqual(names);
      expect(op.pathParams?.parse({ externalId: "3081" })).toEqual({ externalId: 3081 });
    }
  });

  it("uses the order contracts of the revision for bodies and responses", () => {
    for (const op of [OPERATIONS.registerOrder, OPERATIONS.refundOrder]) {
      expect(Object.keys(op.body)).toEqual(["2026-01-01", "2026-06-18"]);
      expect(Object.keys(op.response)).toEqual(["2026-01-01", "2026-06-18"]);
    }
    expect(Object.keys(OPERATIONS.getCustomerHistory.response)).toEqual([
      "2026-01-01",
      "2026-06-18",
    ]);
    for (const revision of API_REVISIONS) {
      const key = revision === "2026-01-01" ? "2026-01-01" : "2026-06-18";
      const schemas = orderSchemasFor(revision);
      // A later revision's request is a copy of its key's (its refusals name the revision).
      const input = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input" });
      expect(input(OPERATIONS.registerOrder.body[key])).toEqual(input(schemas.register));
      expect(OPERATIONS.registerOrder.response[key]).toBe(schemas.registerResponse);
      expect(input(OPERATIONS.refundOrder.body[key])).toEqual(input(schemas.refund));
      expect(OPERATIONS.refundOrder.response[key]).toBe(schemas.refundResponse);
      expect(OPERATIONS.getCustomerHistory.response[key]).toBe(
        customerHistoryResponseSchemaFor(revision),
      );
    }
  });

  it("reads the widget queries' domain", () => {
    for (const op of [
      OPERATIONS.getCartWidget,
      OPERATIONS.getProductPointsWidget,
      OPERATIONS.getProgramPresentationWidget,
    ]) {
      expect(op.query.safeParse({ domain: "https://shop.example" }).success).toBe(true);
      expect(op.query.safeParse({}).success).toBe(false);
    }
  });

  it("asks a Basic Authorization header of the order operations only", () => {
    const authorization = `Basic ${Buffer.from("lk_abc:").toString("base64")}`;
    for (const op of Object.values(OPERATIONS)) {
      const headers = op.headers as z.ZodType;
      expect(headers.safeParse({ revision: "2026-08-26", authorization }).success).toBe(true);
      expect(headers.safeParse({ authorization }).success).toBe(true);
      expect(headers.safeParse({ revision: "2025-01-01", authorization }).success).toBe(false);
      expect(headers.safeParse({}).success).toBe(op.auth !== "basic");
    }
  });
});
