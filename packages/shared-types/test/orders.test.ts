import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  orderLineSchema,
  orderSchemasFor,
  refundOrderRequestV1Schema,
  refundOrderRequestV2Schema,
  registerOrderRequestV1Schema,
  registerOrderRequestV2Schema,
  registerOrderResponseV1Schema,
  registerOrderResponseV2Schema,
  refundOrderResponseV1Schema,
  refundOrderResponseV2Schema,
  type RegisterOrderRequestV1Input,
  type RegisterOrderRequestV2Input,
} from "../src/index.js";

/** The issues of a failed parse, as `path: message` lines easy to search. */
function issuesOf(schema: z.ZodType, input: unknown): { path: string; message: string }[] {
  const result = schema.safeParse(input);
  if (result.success) throw new Error("expected the input to be rejected");
  return result.error.issues.map((issue) => ({
    path: issue.path.join("."),
    message: issue.message,
  }));
}

const orderBody = {
  customer: {
    externalId: 3081,
    email: "ada@example.com",
    firstName: "Ada",
    lastName: "Lovelace",
    language: "fr-CA",
  },
  currency: "EUR",
  orderedAt: "2026-11-20T14:03:00+01:00",
  lines: [
    {
      lineId: "line-1",
      productId: 501,
      variantId: 9001,
      categoryIds: [12, 40],
      name: "Espresso cup",
      sku: "CUP-ESP",
      quantity: 3,
      unitPrice: 19.99,
    },
    { lineId: 2, productId: 502, quantity: 1, unitPrice: 45, totalPaid: 40.5 },
  ],
  shippingAmount: 4.9,
  discountAmount: 4.5,
  totalPaid: 105.37,
};

const v1Order: RegisterOrderRequestV1Input = { externalRef: "#1001", ...orderBody };
const v2Order: RegisterOrderRequestV2Input = {
  externalId: 7_400_123_456,
  externalReference: "#1001",
  ...orderBody,
};

describe("order registration, revision 2026-01-01", () => {
  it("parses a realistic order", () => {
    const order = registerOrderRequestV1Schema.parse(v1Order);
    expect(order.externalRef).toBe("#1001");
    expect(order.customer.externalId).toBe(3081);
    expect(order.lines).toHaveLength(2);
  });

  it("trims externalRef and refuses an empty one", () => {
    expect(
      registerOrderRequestV1Schema.parse({ ...v1Order, externalRef: " #1001 " }),
    ).toMatchObject({ externalRef: "#1001" });
    expect(issuesOf(registerOrderRequestV1Schema, { ...v1Order, externalRef: "  " })).toEqual([
      expect.objectContaining({ path: "externalRef" }),
    ]);
  });

  it("rejects externalId and tells to use externalRef", () => {
    const issues = issuesOf(registerOrderRequestV1Schema, { ...v1Order, externalId: 1001 });
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe("externalId");
    expect(issues[0]?.message).toContain("externalRef");
  });

  it("reports the missing externalRef of a client that sends the newer contract", () => {
    const { externalRef: _unused, ...withoutRef } = v1Order;
    const issues = issuesOf(registerOrderRequestV1Schema, { ...withoutRef, externalId: 1001 });
    expect(issues.map((issue) => issue.path).sort()).toEqual(["externalId", "externalRef"]);
  });

  it("rejects externalReference, which belongs to later revisions", () => {
    const issues = issuesOf(registerOrderRequestV1Schema, {
      ...v1Order,
      externalReference: "#1001",
    });
    expect(issues).toEqual([
      { path: "externalReference", message: expect.stringContaining("2026-06-18") },
    ]);
  });
});

describe("order registration, revision 2026-06-18 and later", () => {
  it("parses a realistic order, with or without externalReference", () => {
    const order = registerOrderRequestV2Schema.parse(v2Order);
    expect(order.externalId).toBe(7_400_123_456);
    expect(order.externalReference).toBe("#1001");

    const { externalReference: _unused, ...withoutReference } = v2Order;
    expect(registerOrderRequestV2Schema.parse(withoutReference).externalReference).toBeUndefined();
  });

  it("rejects externalRef and tells to use externalId", () => {
    const issues = issuesOf(registerOrderRequestV2Schema, { ...v2Order, externalRef: "#1001" });
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe("externalRef");
    expect(issues[0]?.message).toContain("externalId");
  });

  it("requires a numeric, whole, non-negative externalId", () => {
    for (const externalId of ["7400123456", 12.5, -1, undefined]) {
      const issues = issuesOf(registerOrderRequestV2Schema, { ...v2Order, externalId });
      expect(issues.map((issue) => issue.path)).toEqual(["externalId"]);
    }
  });

  it("reports both problems of a client still sending the 2026-01-01 contract", () => {
    const issues = issuesOf(registerOrderRequestV2Schema, v1Order);
    expect(issues.map((issue) => issue.path).sort()).toEqual(["externalId", "externalRef"]);
    expect(issues.find((issue) => issue.path === "externalRef")?.message).toContain("externalId");
  });
});

describe("order lines", () => {
  it("defaults totalPaid to unitPrice × quantity, rounded to the cent", () => {
    const order = registerOrderRequestV2Schema.parse(v2Order);
    expect(order.lines[0]?.totalPaid).toBe(59.97);
    expect(order.lines[0]?.categoryIds).toEqual([12, 40]);
    const line = orderLineSchema.parse({ lineId: 1, productId: 1, quantity: 7, unitPrice: 0.1 });
    expect(line.totalPaid).toBe(0.7);
    expect(line.categoryIds).toEqual([]);
  });

  it("keeps the totalPaid sent, including 0 for a fully discounted line", () => {
    const order = registerOrderRequestV2Schema.parse(v2Order);
    expect(order.lines[1]?.totalPaid).toBe(40.5);
    const free = orderLineSchema.parse({
      lineId: 1,
      productId: 1,
      quantity: 2,
      unitPrice: 10,
      totalPaid: 0,
    });
    expect(free.totalPaid).toBe(0);
  });

  it("rejects duplicate lineIds, naming the repeated line", () => {
    const line = { productId: 501, quantity: 1, unitPrice: 10 };
    for (const schema of [registerOrderRequestV1Schema, registerOrderRequestV2Schema]) {
      const base = schema === registerOrderRequestV1Schema ? v1Order : v2Order;
      const issues = issuesOf(schema, {
        ...base,
        lines: [
          { ...line, lineId: "a" },
          { ...line, lineId: "b" },
          { ...line, lineId: "a" },
        ],
      });
      expect(issues).toEqual([
        { path: "lines.2.lineId", message: expect.stringContaining("lineId a") },
      ]);
    }
  });

  it('treats lineId 7 and "7" as the same line', () => {
    const line = { productId: 501, quantity: 1, unitPrice: 10 };
    const issues = issuesOf(registerOrderRequestV2Schema, {
      ...v2Order,
      lines: [
        { ...line, lineId: 7 },
        { ...line, lineId: "7" },
      ],
    });
    expect(issues.map((issue) => issue.path)).toEqual(["lines.1.lineId"]);
  });

  it("rejects an order without lines and lines with impossible values", () => {
    expect(issuesOf(registerOrderRequestV2Schema, { ...v2Order, lines: [] })).toEqual([
      expect.objectContaining({ path: "lines" }),
    ]);
    const bad = [
      { quantity: 0 },
      { quantity: 1.5 },
      { unitPrice: -1 },
      { totalPaid: -0.01 },
      { productId: "501" },
    ];
    for (const override of bad) {
      const line = { lineId: 1, productId: 501, quantity: 1, unitPrice: 10, ...override };
      expect(orderLineSchema.safeParse(line).success, JSON.stringify(override)).toBe(false);
    }
  });

  it("rejects a lower-case currency and a malformed customer", () => {
    expect(issuesOf(registerOrderRequestV2Schema, { ...v2Order, currency: "eur" })).toEqual([
      expect.objectContaining({ path: "currency" }),
    ]);
    const customer = { ...orderBody.customer, email: "not-an-email", language: "french" };
    const paths = issuesOf(registerOrderRequestV2Schema, { ...v2Order, customer }).map(
      (issue) => issue.path,
    );
    expect(paths.sort()).toEqual(["customer.email", "customer.language"]);
  });
});

describe("order discount codes", () => {
  it("reads them trimmed in both revisions, and an order without them as naming none", () => {
    for (const [schema, order] of [
      [registerOrderRequestV1Schema, v1Order],
      [registerOrderRequestV2Schema, v2Order],
    ] as const) {
      expect(schema.parse(order).discountCodes).toEqual([]);
      const parsed = schema.parse({ ...order, discountCodes: [" k7qx-m3rt-9whz ", "SPRING10"] });
      expect(parsed.discountCodes).toEqual(["k7qx-m3rt-9whz", "SPRING10"]);
    }
  });

  it("refuses an empty or overlong code, and more than 20", () => {
    for (const discountCodes of [[""], ["  "], ["X".repeat(256)], Array(21).fill("A"), "A"]) {
      expect(
        registerOrderRequestV2Schema.safeParse({ ...v2Order, discountCodes }).success,
        JSON.stringify(discountCodes),
      ).toBe(false);
    }
    const codes = Array.from({ length: 20 }, (_, index) => `${"X".repeat(250)}${index}`);
    expect(
      registerOrderRequestV2Schema.parse({ ...v2Order, discountCodes: codes }).discountCodes,
    ).toHaveLength(20);
  });
});

describe("order refunds", () => {
  it("accepts a full refund or cancellation without details, in both revisions", () => {
    expect(
      refundOrderRequestV1Schema.safeParse({ externalRef: "#1001", status: "refunded" }),
    ).toMatchObject({ success: true });
    expect(
      refundOrderRequestV2Schema.safeParse({ externalId: 42, status: "cancelled" }),
    ).toMatchObject({ success: true });
  });

  it("accepts a partial refund with lines or with a cumulative amount", () => {
    const withLines = refundOrderRequestV2Schema.parse({
      externalId: 42,
      status: "partially_refunded",
      creditNoteId: "CN-7",
      lines: [{ lineId: "line-1", quantity: 1, amount: 19.99 }],
      refundedAt: "2026-11-21T09:00:00Z",
    });
    expect(withLines.lines?.[0]?.amount).toBe(19.99);
    const withAmount = refundOrderRequestV1Schema.parse({
      externalRef: "#1001",
      status: "partially_refunded",
      refundedAmount: 12.5,
    });
    expect(withAmount.refundedAmount).toBe(12.5);
  });

  it("rejects a partial refund that names neither lines nor refundedAmount", () => {
    const v1 = issuesOf(refundOrderRequestV1Schema, {
      externalRef: "#1001",
      status: "partially_refunded",
    });
    const v2 = issuesOf(refundOrderRequestV2Schema, {
      externalId: 42,
      status: "partially_refunded",
    });
    const emptyLines = issuesOf(refundOrderRequestV2Schema, {
      externalId: 42,
      status: "partially_refunded",
      lines: [],
    });
    for (const issues of [v1, v2, emptyLines]) {
      expect(issues).toEqual([
        { path: "lines", message: expect.stringContaining("refundedAmount") },
      ]);
    }
  });

  it("rejects the other revision's identifier, naming the right one", () => {
    const v1 = issuesOf(refundOrderRequestV1Schema, {
      externalRef: "#1001",
      externalId: 42,
      status: "refunded",
    });
    expect(v1).toEqual([{ path: "externalId", message: expect.stringContaining("externalRef") }]);
    const v2 = issuesOf(refundOrderRequestV2Schema, {
      externalId: 42,
      externalRef: "#1001",
      status: "refunded",
    });
    expect(v2).toEqual([{ path: "externalRef", message: expect.stringContaining("externalId") }]);
  });

  it("rejects an unknown refund status", () => {
    expect(issuesOf(refundOrderRequestV2Schema, { externalId: 42, status: "returned" })).toEqual([
      expect.objectContaining({ path: "status" }),
    ]);
  });
});

describe("orderSchemasFor", () => {
  it("gives 2026-01-01 the externalRef contracts", () => {
    const schemas = orderSchemasFor("2026-01-01");
    expect(schemas.register).toBe(registerOrderRequestV1Schema);
    expect(schemas.registerResponse).toBe(registerOrderResponseV1Schema);
    expect(schemas.refund).toBe(refundOrderRequestV1Schema);
    expect(schemas.refundResponse).toBe(refundOrderResponseV1Schema);
  });

  it.each(["2026-06-18", "2026-08-26"] as const)("gives %s the externalId contracts", (rev) => {
    const schemas = orderSchemasFor(rev);
    // Each later revision has its own copy of the requests (their refusal of externalRef names
    // it), accepting exactly what 2026-06-18 accepts.
    const input = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input" });
    expect(input(schemas.register)).toEqual(input(registerOrderRequestV2Schema));
    expect(input(schemas.refund)).toEqual(input(refundOrderRequestV2Schema));
    if (rev === "2026-06-18") {
      expect(schemas.register).toBe(registerOrderRequestV2Schema);
      expect(schemas.refund).toBe(refundOrderRequestV2Schema);
    }
    expect(schemas.registerResponse).toBe(registerOrderResponseV2Schema);
    expect(schemas.refundResponse).toBe(refundOrderResponseV2Schema);
  });

  it("describes registration responses with the revision's identifier", () => {
    const receivedAt = "2026-11-22T10:00:00Z";
    expect(
      registerOrderResponseV1Schema.safeParse({
        externalRef: "#1001",
        status: "pending",
        receivedAt,
      }).success,
    ).toBe(true);
    expect(
      registerOrderResponseV2Schema.safeParse({
        externalId: 42,
        externalReference: null,
        status: "processed",
        receivedAt,
      }).success,
    ).toBe(true);
    expect(
      registerOrderResponseV2Schema.safeParse({ externalId: 42, status: "pending", receivedAt })
        .success,
    ).toBe(false);
  });
});
