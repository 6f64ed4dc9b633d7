import { problemSchema } from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/app.js";
import { storeWithKey } from "./support/fixtures.js";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${app.baseUrl}${path}`, { headers });

describe("revision header", () => {
  it("serves the historical contract (2026-01-01) without a header, legacy errors included", async () => {
    app.setNow(new Date("2026-11-22T12:00:00Z"));
    const response = await get("/no/such/operation");
    expect(response.status).toBe(404);
    expect(response.headers.get("revision")).toBe("2026-01-01");
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      statusCode: 404,
      error: "Not Found",
      message: "No operation at GET /no/such/operation.",
    });
  });

  it.each(["2026-13-01", "2026-02-30", "20260101", "latest", "2026-8-26", "2026-08-26T00:00:00Z"])(
    "refuses %j with a problem of type invalid-revision-header",
    async (value) => {
      const response = await get("/reward/list", { revision: value });
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      const problem = problemSchema.parse(await response.json());
      expect(problem.type).toBe("https://loyalty.dev/problems/invalid-revision-header");
      expect(problem.status).toBe(400);
      expect(problem.title).toBe("Invalid revision header");
      expect(problem.instance).toBe("/reward/list");
    },
  );

  it("refuses an unknown revision and lists the supported ones", async () => {
    app.setNow(new Date("2026-11-22T12:00:00Z"));
    const response = await get("/reward/list", { revision: "2025-01-01" });
    expect(response.status).toBe(400);
    const problem = problemSchema.parse(await response.json());
    expect(problem.type).toMatch(/\/unknown-api-revision$/);
    expect(problem.detail).toContain("2026-01-01, 2026-06-18, 2026-08-26");
  });

  it("serves each published revision and echoes it, in its error format", async () => {
    app.setNow(new Date("2026-11-22T12:00:00Z"));
    for (const [revision, problemFormat] of [
      ["2026-01-01", false],
      ["2026-06-18", false],
      ["2026-08-26", true],
    ] as const) {
      const response = await get("/missing", { revision });
      expect(response.headers.get("revision")).toBe(revision);
      expect(response.headers.get("deprecation")).toBeNull();
      const body = (await response.json()) as Record<string, unknown>;
      if (problemFormat) {
        expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
        expect(body).toMatchObject({ type: "https://loyalty.dev/problems/not-found", status: 404 });
        expect(body.requestId).toBe(response.headers.get("x-request-id"));
      } else {
        expect(body).toEqual({ statusCode: 404, error: "Not Found", message: expect.any(String) });
      }
    }
  });

  it("marks a revision past its stable year with Deprecation and Sunset (HTTP-date)", async () => {
    app.setNow(new Date("2027-03-01T00:00:00Z"));
    const response = await get("/missing", { revision: "2026-01-01" });
    expect(response.headers.get("revision")).toBe("2026-01-01");
    expect(response.headers.get("deprecation")).toBe("Fri, 01 Jan 2027 00:00:00 GMT");
    expect(response.headers.get("sunset")).toBe("Sat, 01 Jan 2028 00:00:00 GMT");

    const stable = await get("/missing", { revision: "2026-08-26" });
    expect(stable.headers.get("deprecation")).toBeNull();
    expect(stable.headers.get("sunset")).toBeNull();
  });

  it("deprecates the default revision too when no header is sent", async () => {
    app.setNow(new Date("2027-06-01T00:00:00Z"));
    const response = await get("/missing");
    expect(response.headers.get("revision")).toBe("2026-01-01");
    expect(response.headers.get("deprecation")).toBe("Fri, 01 Jan 2027 00:00:00 GMT");
  });

  it("treats a retired revision as unknown and serves the oldest supported one by default", async () => {
    app.setNow(new Date("2028-01-02T00:00:00Z"));
    const retired = await get("/missing", { revision: "2026-01-01" });
    expect(retired.status).toBe(400);
    const problem = problemSchema.parse(await retired.json());
    expect(problem.type).toMatch(/\/unknown-api-revision$/);
    expect(problem.detail).toContain("Supported revisions: 2026-06-18, 2026-08-26.");

    const byDefault = await get("/missing");
    expect(byDefault.headers.get("revision")).toBe("2026-06-18");
    expect(byDefault.headers.get("deprecation")).toBe("Fri, 18 Jun 2027 00:00:00 GMT");
  });

  it("leaves health probes outside the revisioned API", async () => {
    const response = await get("/healthz", { revision: "garbage" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
    const ready = await get("/readyz");
    expect(ready.status).toBe(200);
  });
});

describe("a field of another revision", () => {
  it.each(["2026-06-18", "2026-08-26"])(
    "is refused naming the revision the request asked for (%s)",
    async (revision) => {
      app.setNow(new Date("2026-11-22T12:00:00Z"));
      const { authorization } = await storeWithKey(app, `https://rev-${revision}.example`);
      const response = await fetch(`${app.baseUrl}/api/order/register`, {
        method: "POST",
        headers: { authorization, revision, "content-type": "application/json" },
        body: JSON.stringify({
          externalRef: "#1001",
          externalId: 1001,
          customer: { externalId: 7 },
          currency: "EUR",
          lines: [{ lineId: 1, productId: 3, quantity: 1, unitPrice: 10 }],
        }),
      });
      expect(response.status).toBe(400);
      const said = JSON.stringify(await response.json());
      expect(said).toContain(`externalRef is not a field in revision ${revision}: use externalId`);
      expect(said).not.toMatch(new RegExp(`revision (?!${revision})\\d{4}-\\d{2}-\\d{2}`));
    },
  );
});
