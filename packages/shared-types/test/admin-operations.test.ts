import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ADMIN_OPERATIONS,
  OPERATIONS,
  adminTokenRequestSchema,
  createRuleRequestSchema,
  idTextSchema,
  pointAdjustmentRequestSchema,
  updateRewardRequestSchema,
  voucherInputSchema,
  type OperationDefinition,
} from "../src/index.js";

const admin: [string, OperationDefinition][] = Object.entries(ADMIN_OPERATIONS);

function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string).sort();
}

describe("ADMIN_OPERATIONS", () => {
  it("lives under /admin, apart from the spec's operations", () => {
    const spec = new Set(Object.values(OPERATIONS).map((op) => `${op.method} ${op.path}`));
    const seen = new Set<string>();
    for (const [name, op] of admin) {
      expect(op.path.startsWith("/admin/"), name).toBe(true);
      const key = `${op.method} ${op.path}`;
      expect(spec.has(key), name).toBe(false);
      expect(seen.has(key), `${name} repeats ${key}`).toBe(false);
      seen.add(key);
    }
  });

  it("declares a schema for exactly the parameters of each path", () => {
    for (const [name, op] of admin) {
      const declared =
        op.pathParams instanceof z.ZodObject ? Object.keys(op.pathParams.shape).sort() : [];
      expect(declared, name).toEqual(pathParameters(op.path));
    }
  });

  it("authenticates every operation but the token's with a bearer token, store-scoped or not", () => {
    for (const [name, op] of admin) {
      if (name === "createAdminToken") {
        expect(op.auth).toBe("public");
        continue;
      }
      expect(op.auth, name).toBe("bearer");
      expect(op.errors, name).toContain("unauthorized");
      // A store-scoped path can be refused to another store's token; creating stores too.
      if (op.path.includes("{storeId}") || op.scope === "service") {
        expect(op.errors, name).toContain("forbidden");
        expect(op.scope, name).toBe(op.path.includes("{storeId}") ? "store" : "service");
      }
      if (op.path.includes("{storeId}")) expect(op.errors, name).toContain("not-found");
    }
  });

  it("answers validation-failed exactly where there is a body or a query, and 204 carries none", () => {
    for (const [name, op] of admin) {
      // Path ids that do not parse are not-found: only a body or a query can fail validation.
      expect(op.errors.includes("validation-failed"), name).toBe(
        op.body !== undefined || op.query !== undefined,
      );
      expect(op.response === undefined, name).toBe(op.successStatus === 204);
    }
  });
});

describe("back-office schemas", () => {
  it("reads ids in paths as positive whole numbers only", () => {
    expect(idTextSchema.parse("42")).toBe(42);
    for (const bad of ["0", "-1", "1.5", "01", "abc", "12345678901234567"]) {
      expect(idTextSchema.safeParse(bad).success, bad).toBe(false);
    }
  });

  it("asks a targeted rule for its target and refuses one on the default rule", () => {
    const pointer = (value: unknown) =>
      createRuleRequestSchema.safeParse(value).error?.issues.map((issue) => issue.path.join("/"));
    expect(pointer({ kind: "product", rate: 1 })).toEqual(["targetId"]);
    expect(pointer({ kind: "default", targetId: 3, rate: 1 })).toEqual(["targetId"]);
    expect(createRuleRequestSchema.parse({ kind: "default", rate: 1 })).toMatchObject({
      targetId: null,
      pointsPerItem: 0,
      active: true,
    });
  });

  it("checks a voucher's terms per kind and keeps its usage limit", () => {
    expect(
      voucherInputSchema.parse({
        kind: "percentage",
        value: 10,
        currency: null,
        minimumOrderAmount: null,
        validityDays: 30,
        usageLimit: 100,
      }),
    ).toMatchObject({ kind: "percentage", usageLimit: 100 });
    const refused = voucherInputSchema.safeParse({
      kind: "fixed_amount",
      value: 5,
      currency: null,
      minimumOrderAmount: null,
      validityDays: null,
      usageLimit: 0,
    });
    expect(refused.error?.issues.map((issue) => issue.path.join("/")).sort()).toEqual([
      "currency",
      "usageLimit",
    ]);
  });

  it("refuses fields a patch cannot change", () => {
    expect(updateRewardRequestSchema.safeParse({ id: 3 }).success).toBe(false);
    expect(updateRewardRequestSchema.safeParse({ active: false }).success).toBe(true);
  });

  it("refuses an adjustment of zero points or without a reason", () => {
    expect(pointAdjustmentRequestSchema.safeParse({ points: 0, reason: "x" }).success).toBe(false);
    expect(pointAdjustmentRequestSchema.safeParse({ points: 5, reason: "  " }).success).toBe(false);
    expect(pointAdjustmentRequestSchema.safeParse({ points: -5, reason: "fix" }).success).toBe(
      true,
    );
  });

  it("needs an email and a password to issue a token", () => {
    expect(adminTokenRequestSchema.safeParse({ email: "a@b.example" }).success).toBe(false);
  });
});

describe("back-office limits", () => {
  it("refuses voucher numbers the database could not hold, rather than failing on them", () => {
    const voucher = {
      kind: "fixed_amount",
      value: 1e10,
      currency: "EUR",
      validityDays: 1e7,
      usageLimit: 1e12,
    };
    const issues = voucherInputSchema.safeParse(voucher).error?.issues.map((i) => i.path[0]);
    expect(issues?.sort()).toEqual(["usageLimit", "validityDays", "value"]);
  });

  it("refuses precision the database would round away", () => {
    const percentage = { kind: "percentage", value: 0.001, minimumOrderAmount: 10.005 };
    const issues = voucherInputSchema.safeParse(percentage).error?.issues.map((i) => i.path[0]);
    expect(issues?.sort()).toEqual(["minimumOrderAmount", "value"]);
    expect(voucherInputSchema.safeParse({ kind: "percentage", value: 12.5 }).success).toBe(true);
    expect(createRuleRequestSchema.safeParse({ kind: "default", rate: 0.00001 }).success).toBe(
      false,
    );
    expect(createRuleRequestSchema.safeParse({ kind: "default", rate: 1.2345 }).success).toBe(true);
  });
});
