import { claimRewardRequestSchema, problemSchema } from "@loyalty/shared-types";
import http from "node:http";
import { Router } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonBody } from "../src/http/body.js";
import { parseRequest } from "../src/http/validate.js";
import { startTestApp, type TestApp } from "./support/app.js";

function probes(): Router[] {
  const router = Router();
  router.post("/probe/echo", ...jsonBody("1kb"), (req, res) => {
    res.status(201).json(parseRequest(claimRewardRequestSchema, req.body, "body"));
  });
  router.get("/probe/item/:id", (req, res) => {
    res.json({ id: req.params["id"] });
  });
  router.get("/probe/crash", async () => {
    await Promise.resolve();
    throw new Error("connection to db.internal:5432 failed for user admin");
  });
  return [router];
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ routers: probes });
});
afterAll(() => app.close());

const send = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${app.baseUrl}/probe/echo`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });

describe("one error path for every failure", () => {
  it("answers malformed JSON with validation-failed, legacy before 2026-08-26", async () => {
    const response = await send('{"rewardId": 1,');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: "The request body is not valid JSON.",
    });
  });

  it("answers malformed JSON with a problem listing the issue from 2026-08-26", async () => {
    const response = await send("{oops", { revision: "2026-08-26" });
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toMatchObject({
      type: "https://loyalty.dev/problems/validation-failed",
      status: 400,
      instance: "/probe/echo",
      errors: [{ location: "body", pointer: "", code: "invalid_json" }],
    });
  });

  it("answers an oversized body with validation-failed naming the limit", async () => {
    const response = await send(JSON.stringify({ rewardId: 1, pad: "x".repeat(2048) }), {
      revision: "2026-08-26",
    });
    expect(response.status).toBe(400);
    const problem = problemSchema.parse(await response.json());
    expect(problem.type).toMatch(/\/validation-failed$/);
    expect(problem.detail).toContain("1024 bytes");
  });

  it("lists every invalid field with a JSON pointer", async () => {
    const response = await send(JSON.stringify({ rewardId: "one" }), { revision: "2026-08-26" });
    const problem = problemSchema.parse(await response.json());
    expect(problem.errors).toEqual([
      expect.objectContaining({ location: "body", pointer: "/rewardId", code: "invalid_type" }),
    ]);
    expect(problem.detail).toContain("body/rewardId");
  });

  it("still serves valid requests", async () => {
    const response = await send(JSON.stringify({ rewardId: 3 }));
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({ rewardId: 3 });
  });

  it("hides unexpected exceptions behind internal-server-error and logs them", async () => {
    const response = await fetch(`${app.baseUrl}/probe/crash`, {
      headers: { revision: "2026-08-26" },
    });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).not.toContain("db.internal");
    const problem = problemSchema.parse(JSON.parse(text));
    expect(problem).toMatchObject({
      type: "https://loyalty.dev/problems/internal-server-error",
      status: 500,
      detail: "The request could not be completed.",
    });
    const logged = app.logs.find(
      (line) => line.includes(String(problem.requestId)) && line.includes("db.internal"),
    );
    expect(logged).toBeDefined();
  });

  it("answers 500 in the legacy format without a header", async () => {
    const response = await fetch(`${app.baseUrl}/probe/crash`);
    expect(await response.json()).toEqual({
      statusCode: 500,
      error: "Internal Server Error",
      message: "The request could not be completed.",
    });
  });

  it("answers a path whose percent-encoding is broken as a client error, not a 500", async () => {
    const response = await fetch(`${app.baseUrl}/probe/item/%E0%A4%A`, {
      headers: { revision: "2026-08-26" },
    });
    expect(response.status).toBe(400);
    expect(problemSchema.parse(await response.json()).type).toMatch(/\/validation-failed$/);
    const fine = await fetch(`${app.baseUrl}/probe/item/caf%C3%A9`);
    expect(await fine.json()).toEqual({ id: "café" });
  });

  it("refuses a JSON body escaping a NUL character, which PostgreSQL cannot store", async () => {
    const response = await send('{"rewardId": 1, "note": "a\\u0000b"}', { revision: "2026-08-26" });
    expect(response.status).toBe(400);
    const problem = problemSchema.parse(await response.json());
    expect(problem.detail).toContain("NUL");
    const escapedBackslash = await send('{"rewardId": 1, "note": "a\\\\u0000b"}');
    expect(escapedBackslash.status).toBe(201);
  });

  it("answers a request target that is no URL in JSON and logs it", async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>(
      (resolve, reject) => {
        const request = http.request(
          { host: "127.0.0.1", port: new URL(app.baseUrl).port, path: "//x:99999/p?hash=abc" },
          (response) => {
            let body = "";
            response.on("data", (chunk: Buffer) => (body += chunk.toString()));
            response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
          },
        );
        request.on("error", reject);
        request.end();
      },
    );
    expect(status).toBe(404);
    expect(JSON.parse(body)).toMatchObject({ statusCode: 404, error: "Not Found" });
    expect(app.logs.some((line) => line.includes("//x:99999/p"))).toBe(true);
    expect(app.logs.join("")).not.toContain("hash=abc");
  });

  it("answers unknown routes and methods with not-found", async () => {
    const response = await fetch(`${app.baseUrl}/probe/echo`, { method: "DELETE" });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ statusCode: 404, error: "Not Found" });
  });

  it("keeps a sane caller request id and replaces an unsafe one", async () => {
    const kept = await fetch(`${app.baseUrl}/x`, { headers: { "x-request-id": "trace-123" } });
    expect(kept.headers.get("x-request-id")).toBe("trace-123");
    const replaced = await fetch(`${app.baseUrl}/x`, {
      headers: { "x-request-id": "a b<script>" },
    });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
