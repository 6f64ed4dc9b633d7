import { request as httpRequest } from "node:http";
import { Writable } from "node:stream";
import { Router } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, redactSecrets } from "../src/http/logger.js";
import { adminSession, type AdminSession } from "./support/admin.js";
import { basic, startTestApp, type TestApp } from "./support/app.js";
import { hashFor, oneLineOrder, storeWithKey } from "./support/fixtures.js";

let app: TestApp;
let admin: AdminSession;
let store: { id: number; reference: string };
/** Probes in the app's pipeline for what no operation does: fail, and answer slowly. */
function probes(): Router[] {
  const router = Router();
  router.get("/probe/fail", () => {
    throw new Error("the probe failed");
  });
  router.get("/probe/slow", (_req, res) => {
    setTimeout(() => {
      if (!res.writableEnded && !res.destroyed) res.json({ slow: true });
    }, 1_000);
  });
  return [router];
}

beforeAll(async () => {
  app = await startTestApp({ routers: probes });
  ({ store } = await storeWithKey(app, "https://logs.example"));
  admin = await adminSession(app);
});
afterAll(() => app.close());

/** A new key of the store: `lk_<public prefix>_<secret>`. */
async function newKey() {
  const { key } = await app.context.services.apiKeys.create(store.reference);
  const id = key.slice(0, "lk_".length + 10);
  return { key, id, secret: key.slice(id.length + 1) };
}

/** Every percent-encoded, as a client that encodes everything would send it. */
const encodeAll = (text: string) =>
  [...Buffer.from(text)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join("");

/** The lines the app writes while `action` runs (the access line comes after the response). */
async function linesDuring(action: () => Promise<unknown>, expected = 1): Promise<string[]> {
  const start = app.logs.length;
  await action();
  const deadline = Date.now() + 2_000;
  while (app.logs.length - start < expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return app.logs.slice(start);
}

function expectNoSecret(lines: string[], ...secrets: string[]) {
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    expect(() => JSON.parse(line)).not.toThrow();
    for (const secret of secrets) {
      expect(line).not.toContain(secret);
      expect(line.toLowerCase()).not.toContain(encodeAll(secret).toLowerCase());
    }
  }
}

describe("access lines", () => {
  it("are written for a path whose percent-encoding is broken, with the answer's status", async () => {
    for (const [path, status] of [
      [`/admin/stores/${store.id}/customers/%E0%A4%A`, 404],
      ["/point/user-history/%ZZ?hash=x&domain=https%3A%2F%2Flogs.example", 401],
    ] as const) {
      // The refusal's line, then the access line once the answer is sent.
      const lines = await linesDuring(() => admin.request("GET", path), 2);
      const access = lines.map((line) => JSON.parse(line)).find((entry) => entry.res);
      expect(access, path).toMatchObject({ req: { method: "GET" }, res: { statusCode: status } });
    }
  });

  it("are one per request, an error line for a failure, with the request's fields on each", async () => {
    const lines = (await linesDuring(() => fetch(`${app.baseUrl}/probe/fail?x=1`), 2)).map(
      (line) => JSON.parse(line) as Record<string, unknown>,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const failed = lines.find((entry) => entry.msg === "request failed");
    const access = lines.filter((entry) => entry.res);
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({
      level: 50,
      msg: "request errored",
      res: { statusCode: 500 },
      err: { message: "failed with status code 500" },
      req: { method: "GET", path: "/probe/fail", query: { x: "1" } },
    });
    expect(typeof access[0]?.responseTime).toBe("number");
    // Only these: the line is written without the logger's redaction by path, its fields
    // redacted where they are built, so a field added to it must be added here knowingly.
    expect(Object.keys(access[0] ?? {}).sort()).toEqual(
      ["err", "level", "msg", "req", "res", "responseTime", "service", "time"].sort(),
    );
    expect(Object.keys(access[0]?.req as object).sort()).toEqual(
      ["id", "method", "path", "query", "userAgent"].sort(),
    );
    // The failure's line and the access line name the same request.
    expect(failed).toMatchObject({ level: 50, err: { message: "the probe failed" } });
    expect((failed?.req as { id?: string }).id).toBe((access[0]?.req as { id?: string }).id);
  });

  it("say a request was aborted when its client went away before the answer", async () => {
    const lines = await linesDuring(
      () =>
        new Promise<void>((resolve) => {
          const url = new URL("/probe/slow", app.baseUrl);
          const sent = httpRequest(url, () => undefined);
          sent.on("error", () => resolve());
          sent.end();
          setTimeout(() => {
            sent.destroy();
            resolve();
          }, 200);
        }),
    );
    const access = lines.map((line) => JSON.parse(line)).filter((entry) => entry.res);
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({
      level: 30,
      msg: "request aborted",
      req: { path: "/probe/slow" },
    });
  });

  // An operator filters a store's requests by it, a success's or a failure's.
  it("name the store once authentication named it, and none before", async () => {
    const { key } = await newKey();
    const register = (body: string) =>
      linesDuring(() =>
        fetch(`${app.baseUrl}/api/order/register`, {
          method: "POST",
          headers: {
            authorization: basic(key),
            "content-type": "application/json",
            revision: "2026-08-26",
          },
          body,
        }),
      );
    const accessLine = (lines: string[]) =>
      lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.res);
    expect(accessLine(await register(oneLineOrder(901)))).toMatchObject({
      storeId: store.id,
      res: { statusCode: 201 },
    });
    expect(accessLine(await register("{"))).toMatchObject({
      storeId: store.id,
      res: { statusCode: 400 },
    });
    const refused = accessLine(
      await linesDuring(() =>
        fetch(`${app.baseUrl}/api/order/register`, {
          method: "POST",
          headers: {
            authorization: basic("lk_0000000000_wrong"),
            "content-type": "application/json",
          },
          body: oneLineOrder(902),
        }),
      ),
    );
    expect(refused).toMatchObject({ res: { statusCode: 401 } });
    expect(refused).not.toHaveProperty("storeId");
  });
});

describe("no API key or customer hash reaches a log line", () => {
  it("logs the key id, never the key, when a key is revoked by the whole key in the path", async () => {
    const { key, id, secret } = await newKey();
    const lines = await linesDuring(() =>
      admin.request("DELETE", `/admin/stores/${store.id}/api-keys/${key}`),
    );
    expectNoSecret(lines, secret);
    const access = lines.map((line) => JSON.parse(line)).find((entry) => entry.req);
    expect(access.req.path).toBe(`/admin/stores/${store.id}/api-keys/${id}_[redacted]`);
  });

  it("redacts a percent-encoded key in the path", async () => {
    const { key, secret } = await newKey();
    const lines = await linesDuring(() =>
      admin.request("DELETE", `/admin/stores/${store.id}/api-keys/${encodeAll(key)}`),
    );
    expectNoSecret(lines, secret);
  });

  it("redacts keys and hashes in any query parameter, names included", async () => {
    const { key, id, secret } = await newKey();
    const hash = hashFor(store.reference, key, 42);
    const query = new URLSearchParams({ api_key: key, h: hash, [key]: "1", note: `x${hash}y` });
    const lines = await linesDuring(() =>
      admin.request("GET", `/admin/stores?${query.toString()}`),
    );
    expectNoSecret(lines, secret, hash);
    const access = lines.map((line) => JSON.parse(line)).find((entry) => entry.req);
    expect(access.req.query.api_key).toBe(`${id}_[redacted]`);
    expect(access.req.query.h).toBe("[redacted]");
    expect(access.req.query.note).toBe("x[redacted]y");
  });

  it("never writes the value of a parameter named for a secret, in any capitals", async () => {
    const query = "Password=hunter22&SECRET=opensesame&Token=t0ken&access_token=acc3ss&page=2";
    const lines = await linesDuring(() => admin.request("GET", `/admin/stores?${query}`));
    expectNoSecret(lines, "hunter22", "opensesame", "t0ken", "acc3ss");
    const access = lines.map((line) => JSON.parse(line)).find((entry) => entry.req);
    expect(access.req.query).toEqual({
      Password: "[redacted]",
      SECRET: "[redacted]",
      Token: "[redacted]",
      access_token: "[redacted]",
      page: "2",
    });
  });

  it("redacts a key in the path of an unknown operation, whose refusal echoes the path", async () => {
    const { key, secret } = await newKey();
    const hash = hashFor(store.reference, key, 7);
    for (const path of [`/api/keys/${key}/${hash}`, `/api/keys/${encodeAll(key)}`]) {
      const lines = await linesDuring(
        () =>
          fetch(`${app.baseUrl}${path}`, {
            headers: { authorization: basic(key), revision: "2026-08-26" },
          }),
        2,
      );
      expect(lines.some((line) => line.includes("request refused"))).toBe(true);
      expectNoSecret(lines, secret, hash);
    }
  });

  it("redacts what the error log says of a failure that names a key", () => {
    const lines: string[] = [];
    const logger = createLogger(
      "info",
      new Writable({
        write(chunk: Buffer, _encoding, callback) {
          lines.push(chunk.toString("utf8"));
          callback();
        },
      }),
    );
    const key = `lk_abcdefghij_${"A1-_".repeat(10)}xyz`;
    const hash = "ab".repeat(64);
    logger
      .child({ url: `/x?k=${key}` })
      .error(
        { err: new Error(`cannot revoke ${key}`), detail: `hash ${hash}` },
        `failed for ${key}`,
      );
    expectNoSecret(lines, key.slice(14), hash);
    expect(lines.join("")).toContain("lk_abcdefghij_[redacted]");
  });
});

describe("redaction at the cost of a plain request", () => {
  it("logs a 15 KB path or query with a stray percent sign without stalling the process", async () => {
    // Before: a pattern of escape groups backtracked over the whole run, 506 ms per request.
    const run = `${"z".repeat(15_000)}%`;
    for (const target of [`/${run}`, `/unknown?${run}=1`]) {
      const started = performance.now();
      const lines = await linesDuring(() => fetch(`${app.baseUrl}${target}`));
      expect(performance.now() - started).toBeLessThan(100);
      expect(lines.join("")).toContain("zzzz");
    }
    // The fastest of five: a shared machine's pause is not the pattern's cost (506 ms before).
    const times = Array.from({ length: 5 }, () => {
      const started = performance.now();
      redactSecrets(`"path":"/${run}","query":{"${run}":"${run}"}`);
      return performance.now() - started;
    });
    expect(Math.min(...times)).toBeLessThan(20);
  });
});

describe("redactSecrets", () => {
  it("keeps the public prefix of a key and everything that is no secret", () => {
    const key = `lk_0123456789_${"a".repeat(43)}`;
    expect(redactSecrets(`/api-keys/${key}?a=1`)).toBe("/api-keys/lk_0123456789_[redacted]?a=1");
    expect(redactSecrets("/api-keys/lk_0123456789")).toBe("/api-keys/lk_0123456789");
    expect(redactSecrets(`h=${"F".repeat(128)}&x=${"f".repeat(64)}`)).toBe(
      `h=[redacted]&x=${"f".repeat(64)}`,
    );
    expect(redactSecrets("/a%20b/%ZZ")).toBe("/a%20b/%ZZ");
  });

  it("redacts a percent-encoded key without letting a decoded quote out", () => {
    const key = `lk_0123456789_${"b".repeat(43)}`;
    const redacted = redactSecrets(`"path":"/k/${encodeAll(`"${key}`)}"`);
    expect(redacted).toBe('"path":"/k/%22lk_0123456789_[redacted]"');
  });
});
