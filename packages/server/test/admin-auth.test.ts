import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecretBox } from "../src/crypto/secrets.js";
import { AdminAuthService } from "../src/modules/admin/admin-auth.service.js";
import { adminSession, type AdminSession } from "./support/admin.js";
import { startTestApp, TEST_MASTER_KEY, type TestApp } from "./support/app.js";
import { storeWithKey } from "./support/fixtures.js";

let app: TestApp;
let service: AdminSession;
let storeA: Awaited<ReturnType<typeof storeWithKey>>;
let storeB: Awaited<ReturnType<typeof storeWithKey>>;

beforeAll(async () => {
  app = await startTestApp();
  service = await adminSession(app);
  storeA = await storeWithKey(app, "https://a.example");
  storeB = await storeWithKey(app, "https://b.example");
});
afterAll(async () => {
  await app.close();
});

async function token(body: unknown, revision = "2026-08-26"): Promise<Response> {
  return fetch(`${app.baseUrl}/admin/token`, {
    method: "POST",
    headers: { "content-type": "application/json", revision },
    body: JSON.stringify(body),
  });
}

async function getWith(authorization: string | undefined, path: string, revision = "2026-08-26") {
  const response = await fetch(`${app.baseUrl}${path}`, {
    headers: { revision, ...(authorization ? { authorization } : {}) },
  });
  return { response, body: (await response.json()) as Record<string, unknown> };
}

function problemReason(body: Record<string, unknown>): string | undefined {
  return typeof body["type"] === "string" ? body["type"].split("/").pop() : undefined;
}

describe("POST /admin/token", () => {
  it("issues a short-lived bearer token for the whole service", async () => {
    const response = await token({ email: service.email, password: service.password });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ tokenType: "Bearer", expiresIn: 900, storeId: null });
    const expiresAt = Date.parse(body["expiresAt"] as string);
    expect(expiresAt - Date.now()).toBeGreaterThan(890_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(900_000);
    const stores = await getWith(`Bearer ${body["accessToken"] as string}`, "/admin/stores");
    expect(stores.response.status).toBe(200);
    expect((stores.body as unknown as { domain: string }[]).map((s) => s.domain)).toEqual([
      "https://a.example",
      "https://b.example",
    ]);
  });

  it("refuses a wrong password and an unknown email alike, without saying which", async () => {
    const wrong = await token({ email: service.email, password: "not the password" });
    const unknown = await token({ email: "nobody@example.com", password: "whatever-password" });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const [a, b] = [(await wrong.json()) as Problem, (await unknown.json()) as Problem];
    expect(a.detail).toBe(b.detail);
    expect(a.type).toMatch(/\/unauthorized$/);
  });

  it("names the fields of a malformed request", async () => {
    const response = await token({ email: "not-an-email", storeId: 0 });
    expect(response.status).toBe(400);
    const body = (await response.json()) as Problem;
    expect(body.errors?.map((issue) => issue.pointer).sort()).toEqual([
      "/email",
      "/password",
      "/storeId",
    ]);
  });

  it("limits a service admin's token to one store on request", async () => {
    const scoped = await adminSession(app, { storeId: storeA.store.id });
    expect((await scoped.request("GET", `/admin/stores/${storeA.store.id}`)).status).toBe(200);
    expect((await scoped.request("GET", `/admin/stores/${storeB.store.id}`)).status).toBe(403);
    const listed = (await (await scoped.request("GET", "/admin/stores")).json()) as {
      id: number;
    }[];
    expect(listed.map((store) => store.id)).toEqual([storeA.store.id]);
  });

  it("refuses a token for an unknown store, and a store admin's token for another store", async () => {
    const unknown = await token({ email: service.email, password: service.password, storeId: 999 });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as Problem).errors?.[0]?.pointer).toBe("/storeId");

    const storeAdmin = await adminSession(app, { storeReference: storeA.store.reference });
    const other = await token({
      email: storeAdmin.email,
      password: storeAdmin.password,
      storeId: storeB.store.id,
    });
    expect(other.status).toBe(403);
    const own = await token({ email: storeAdmin.email, password: storeAdmin.password });
    expect(((await own.json()) as { storeId: number }).storeId).toBe(storeA.store.id);
  });
});

interface Problem {
  type: string;
  detail: string;
  status: number;
  errors?: { pointer: string }[];
}

describe("bearer authentication", () => {
  it("answers 401 with a Bearer challenge when the token is missing or malformed", async () => {
    for (const authorization of [undefined, "Bearer", "Basic abc", "Bearer a b"]) {
      const { response, body } = await getWith(authorization, "/admin/stores");
      expect(response.status, authorization).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm=/);
      expect(problemReason(body)).toBe("unauthorized");
    }
  });

  it("refuses a token signed with another key, an unsigned one and a forged store claim", async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { store_id: storeB.store.id };
    const otherKey = SecretBox.fromText("11".repeat(32)).deriveKey(
      "loyalty admin access tokens v1",
    );
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("loyalty")
      .setAudience("loyalty-admin")
      .setSubject("1")
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(otherKey);
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const unsigned = `${encode({ alg: "none", typ: "JWT" })}.${encode({
      ...claims,
      iss: "loyalty",
      aud: "loyalty-admin",
      sub: "1",
      iat: now,
      exp: now + 600,
    })}.`;
    // The service token's payload with another store's id: its signature no longer matches.
    const [header, , signature] = service.token.split(".");
    const tampered = `${header}.${encode({ ...claims, sub: "1", exp: now + 600 })}.${signature}`;
    for (const bad of [forged, unsigned, tampered]) {
      const { response, body } = await getWith(`Bearer ${bad}`, `/admin/stores/${storeB.store.id}`);
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
      expect(body["detail"]).toBe("The access token is not valid.");
    }
  });

  it("refuses an expired token and says so", async () => {
    const earlier = new AdminAuthService(
      app.context.pool,
      SecretBox.fromText(TEST_MASTER_KEY),
      900,
      () => new Date(Date.now() - 901_000),
    );
    const expired = await earlier.issueToken({ email: service.email, password: service.password });
    const { response, body } = await getWith(`Bearer ${expired.accessToken}`, "/admin/stores");
    expect(response.status).toBe(401);
    expect(body["detail"]).toMatch(/expired/);
  });

  it("refuses the tokens of an admin disabled since, at once", async () => {
    const admin = await adminSession(app);
    expect((await admin.request("GET", "/admin/stores")).status).toBe(200);
    await app.context.services.adminAuth.disableAdmin(admin.email);
    expect((await admin.request("GET", "/admin/stores")).status).toBe(401);
    expect((await token({ email: admin.email, password: admin.password })).status).toBe(401);
  });

  it("answers 403 to a store token on another store or on a service operation", async () => {
    const storeAdmin = await adminSession(app, { storeReference: storeA.store.reference });
    for (const path of [
      `/admin/stores/${storeB.store.id}`,
      `/admin/stores/${storeB.store.id}/api-keys`,
    ]) {
      const response = await storeAdmin.request("GET", path);
      expect(response.status, path).toBe(403);
      expect(problemReason((await response.json()) as Record<string, unknown>)).toBe("forbidden");
    }
    const revoke = await storeAdmin.request(
      "DELETE",
      `/admin/stores/${storeB.store.id}/api-keys/lk_0123456789`,
    );
    expect(revoke.status).toBe(403);
    // Whatever else is wrong with the request: the path names a store the token may not touch.
    const badBody = await storeAdmin.request("PATCH", `/admin/stores/${storeB.store.id}`, {
      name: 42,
    });
    expect(badBody.status).toBe(403);
    const badQuery = await storeAdmin.request(
      "GET",
      `/admin/stores/${storeB.store.id}/customers?limit=lots`,
    );
    expect(badQuery.status).toBe(403);
    const create = await storeAdmin.request("POST", "/admin/stores", {
      domain: "https://c.example",
    });
    expect(create.status).toBe(403);
    expect(
      (await app.context.services.stores.findByDomain("https://c.example")) ?? null,
    ).toBeNull();
  });

  it("refuses a request without a valid token before reading its body", async () => {
    const path = `${app.baseUrl}/admin/stores/${storeA.store.id}`;
    const broken = { "content-type": "application/json", revision: "2026-08-26" };
    const anonymous = await fetch(path, { method: "PATCH", headers: broken, body: "{nope" });
    expect(anonymous.status).toBe(401);
    const authenticated = await fetch(path, {
      method: "PATCH",
      headers: { ...broken, authorization: `Bearer ${service.token}` },
      body: "{nope",
    });
    expect(authenticated.status).toBe(400);
    expect(((await authenticated.json()) as Problem).type).toMatch(/\/validation-failed$/);
    const login = await fetch(`${app.baseUrl}/admin/token`, {
      method: "POST",
      headers: broken,
      body: "{nope",
    });
    expect(login.status).toBe(400);
  });

  it("renders its refusals in the legacy format for revision 2026-01-01", async () => {
    const missing = await getWith(undefined, "/admin/stores", "2026-01-01");
    expect(missing.response.status).toBe(401);
    expect(missing.body).toEqual({
      statusCode: 401,
      error: "Unauthorized",
      message: expect.stringMatching(/Bearer/) as unknown,
    });
    const storeAdmin = await adminSession(app, { storeReference: storeA.store.reference });
    const forbidden = await getWith(
      `Bearer ${storeAdmin.token}`,
      `/admin/stores/${storeB.store.id}`,
      "2026-01-01",
    );
    expect(forbidden.response.status).toBe(403);
    expect(forbidden.body).toMatchObject({ statusCode: 403, error: "Forbidden" });
  });

  it("accepts a token on every server process sharing the master key", async () => {
    const other = await startTestApp({ database: app.database });
    try {
      const response = await fetch(`${other.baseUrl}/admin/stores/${storeA.store.id}`, {
        headers: { authorization: `Bearer ${service.token}` },
      });
      expect(response.status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe("store and API key operations", () => {
  it("creates a store, changes its domain, and keeps a domain to one store", async () => {
    const created = await service.request("POST", "/admin/stores", {
      domain: "https://New-Shop.example/",
      name: "New shop",
      currency: "USD",
      brandingColor: "#112233",
    });
    expect(created.status).toBe(201);
    const store = (await created.json()) as { id: number; domain: string; reference: string };
    expect(store).toMatchObject({ domain: "https://new-shop.example", currency: "USD" });
    expect(store.reference).toMatch(/^st_/);

    const taken = await service.request("PATCH", `/admin/stores/${store.id}`, {
      domain: "https://a.example",
    });
    expect(taken.status).toBe(400);
    expect(((await taken.json()) as Problem).errors?.[0]?.pointer).toBe("/domain");

    const moved = await service.request("PATCH", `/admin/stores/${store.id}`, {
      domain: "https://moved.example",
      language: "fr",
    });
    expect(moved.status).toBe(200);
    expect(await moved.json()).toMatchObject({ domain: "https://moved.example", language: "fr" });
    // The storefront finds it under its new domain at once, and no longer under the old one.
    const widget = await fetch(
      `${app.baseUrl}/store/widget/cart?domain=${encodeURIComponent("https://moved.example")}`,
    );
    expect(widget.status).toBe(200);
    expect(((await widget.json()) as { store: { language: string } }).store.language).toBe("fr");
    const old = await fetch(
      `${app.baseUrl}/store/widget/cart?domain=${encodeURIComponent("https://new-shop.example")}`,
    );
    expect(old.status).toBe(404);
  });

  it("serves a new store's domain on every process as soon as the store is created", async () => {
    const other = await startTestApp({ database: app.database });
    try {
      const url = `${other.baseUrl}/store/widget/cart?domain=${encodeURIComponent("https://late.example")}`;
      // The other process learns that no store has the domain, and remembers it.
      expect((await fetch(url)).status).toBe(404);
      expect((await fetch(url)).status).toBe(404);
      const created = await service.request("POST", "/admin/stores", {
        domain: "https://late.example",
      });
      expect(created.status).toBe(201);
      expect((await fetch(url)).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it("refuses an invalid change and changes nothing", async () => {
    const before = await (await service.request("GET", `/admin/stores/${storeA.store.id}`)).json();
    const response = await service.request("PATCH", `/admin/stores/${storeA.store.id}`, {
      name: "Renamed",
      currency: "euro",
      reference: "stolen",
    });
    expect(response.status).toBe(400);
    const pointers = ((await response.json()) as Problem).errors?.map((issue) => issue.pointer);
    expect(pointers?.sort()).toEqual(["/currency", "/reference"]);
    const after = await (await service.request("GET", `/admin/stores/${storeA.store.id}`)).json();
    expect(after).toEqual(before);
  });

  it("creates several active keys, shows each once, and revokes one at once", async () => {
    const path = `/admin/stores/${storeA.store.id}/api-keys`;
    const first = (await (await service.request("POST", path, { label: "old" })).json()) as {
      id: string;
      key: string;
    };
    const second = (await (await service.request("POST", path, {})).json()) as { key: string };
    const listed = await (await service.request("GET", path)).text();
    expect(listed).not.toContain(first.key);
    expect(listed).not.toContain(second.key);

    const register = (key: string) =>
      fetch(`${app.baseUrl}/api/order/register`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${key}:`).toString("base64")}`,
          "content-type": "application/json",
        },
        body: "{}",
      });
    // Both keys authenticate (a 400 for the empty order, not a 401).
    expect((await register(first.key)).status).toBe(400);
    expect((await register(second.key)).status).toBe(400);

    const revoked = await service.request("DELETE", `${path}/${first.id}`);
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ id: first.id, active: false });
    expect((await register(first.key)).status).toBe(401);
    expect((await register(second.key)).status).toBe(400);
  });

  it("does not revoke another store's key through this store's path", async () => {
    const { key } = await app.context.services.apiKeys.create(storeB.store.reference);
    const id = key.slice(0, 13);
    const response = await service.request(
      "DELETE",
      `/admin/stores/${storeA.store.id}/api-keys/${id}`,
    );
    expect(response.status).toBe(404);
    const keys = await app.context.services.apiKeys.list(storeB.store.reference);
    expect(keys.find((row) => `lk_${row.prefix}` === id)?.revokedAt).toBeNull();
  });
});
