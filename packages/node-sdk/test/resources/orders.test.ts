import { OPERATION_EXAMPLES } from "@loyalty/shared-types";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { RegisterOrderResponseV1, RegisterOrderResponseV2 } from "../../src/index.js";
import { answer, client, CREDENTIALS, json, useMockApi } from "../support/api.js";

useMockApi();

const register = OPERATION_EXAMPLES.registerOrder;
const refund = OPERATION_EXAMPLES.refundOrder;
const basic = `Basic ${Buffer.from(`${CREDENTIALS.apiKey}:`).toString("base64")}`;

describe("orders.register", () => {
  it("POSTs the order with Basic authentication and the latest revision", async () => {
    const seen = answer("post", "/api/order/register", () =>
      json(register.response["2026-06-18"], 201),
    );

    const registered = await client().orders.register(register.request["2026-06-18"]);

    expect(registered).toEqual(register.response["2026-06-18"]);
    expectTypeOf(registered).toEqualTypeOf<RegisterOrderResponseV2>();
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request!.method).toBe("POST");
    expect(request!.headers.get("authorization")).toBe(basic);
    expect(request!.headers.get("revision")).toBe("2026-08-26");
    expect(request!.headers.get("content-type")).toBe("application/json");
    expect(request!.headers.get("user-agent")).toMatch(/^loyalty-node-sdk\//);
    expect(request!.url.search).toBe("");
    expect(request!.body).toEqual(register.request["2026-06-18"]);
  });

  it("sends and accepts externalRef when the client is pinned to 2026-01-01", async () => {
    const seen = answer("post", "/api/order/register", () =>
      json(register.response["2026-01-01"], 201),
    );
    const legacy = client({ revision: "2026-01-01" });

    const registered = await legacy.orders.register(register.request["2026-01-01"]);

    expect(registered.externalRef).toBe("5001");
    expectTypeOf(registered).toEqualTypeOf<RegisterOrderResponseV1>();
    expect(seen[0]!.headers.get("revision")).toBe("2026-01-01");
    expect(seen[0]!.body).toEqual(register.request["2026-01-01"]);
  });

  it("lets one call use another revision than the client's", async () => {
    const seen = answer("post", "/api/order/register", () =>
      json(register.response["2026-01-01"], 201),
    );

    const registered = await client().orders.register(register.request["2026-01-01"], {
      revision: "2026-01-01",
    });

    expectTypeOf(registered).toEqualTypeOf<RegisterOrderResponseV1>();
    expect(seen[0]!.headers.get("revision")).toBe("2026-01-01");
  });

  it("pinned to 2026-06-18, sends that revision and its shapes", async () => {
    const seen = answer("post", "/api/order/register", () =>
      json(register.response["2026-06-18"], 201),
    );

    const registered = await client({ revision: "2026-06-18" }).orders.register(
      register.request["2026-06-18"],
    );

    expectTypeOf(registered).toEqualTypeOf<RegisterOrderResponseV2>();
    expect(seen[0]!.headers.get("revision")).toBe("2026-06-18");
  });
});

describe("orders.refund", () => {
  it("POSTs the cumulative refund with Basic authentication", async () => {
    const seen = answer("post", "/api/order/refund", () =>
      json(refund.response["2026-06-18"], 201),
    );

    const declared = await client().orders.refund(refund.request["2026-06-18"]);

    expect(declared).toEqual(refund.response["2026-06-18"]);
    expect(seen[0]!.headers.get("authorization")).toBe(basic);
    expect(seen[0]!.body).toEqual(refund.request["2026-06-18"]);
    expect(seen[0]!.headers.get("idempotency-key")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("names the order externalRef in 2026-01-01", async () => {
    const seen = answer("post", "/api/order/refund", () =>
      json(refund.response["2026-01-01"], 201),
    );

    const declared = await client({ revision: "2026-01-01" }).orders.refund(
      refund.request["2026-01-01"],
    );

    expect(declared.externalRef).toBe("5001");
    expect(seen[0]!.headers.get("revision")).toBe("2026-01-01");
  });
});
