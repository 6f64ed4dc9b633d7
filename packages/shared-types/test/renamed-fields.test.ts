import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  API_REVISIONS,
  orderSchemasFor,
  refundOrderRequestV2Schema,
  registerOrderRequestV2Schema,
  usesLegacyOrderRef,
} from "../src/index.js";

const order = {
  externalRef: "#1001",
  customer: { externalId: 7 },
  currency: "EUR",
  lines: [{ lineId: 1, productId: 3, quantity: 1, unitPrice: 10 }],
};
const refund = { externalRef: "#1001", status: "refunded" };

const messagesOf = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.error?.issues.map((issue) => issue.message) ?? [];

describe("a field of another revision is refused in the revision asked for", () => {
  it.each(API_REVISIONS.filter((revision) => !usesLegacyOrderRef(revision)))(
    "names %s when its request sends externalRef",
    (revision) => {
      const schemas = orderSchemasFor(revision);
      const expected = `externalRef is not a field in revision ${revision}: use externalId`;
      expect(messagesOf(schemas.register.safeParse({ ...order, externalId: 1001 }))).toEqual([
        expected,
      ]);
      expect(messagesOf(schemas.refund.safeParse({ ...refund, externalId: 1001 }))).toEqual([
        expected,
      ]);
    },
  );

  it("gives those revisions the contract of 2026-06-18 otherwise", () => {
    const contract = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input" });
    for (const revision of API_REVISIONS.filter((r) => !usesLegacyOrderRef(r))) {
      const schemas = orderSchemasFor(revision);
      expect(contract(schemas.register)).toEqual(contract(registerOrderRequestV2Schema));
      expect(contract(schemas.refund)).toEqual(contract(refundOrderRequestV2Schema));
      // The refinements too: a line named twice, a partial refund that names nothing.
      const { externalRef: _ignored, ...body } = order;
      const twice = { ...body, externalId: 1001, lines: [...body.lines, ...body.lines] };
      expect(schemas.register.safeParse(twice).success).toBe(false);
      expect(
        schemas.refund.safeParse({ externalId: 1001, status: "partially_refunded" }).success,
      ).toBe(false);
    }
  });
});
