import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, TEST_MASTER_KEY, type TestApp } from "./support/app.js";
import { runCommand } from "./support/cli.js";
import { environment } from "./support/processes.js";

let app: TestApp;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  app = await startTestApp();
  env = environment({ DATABASE_URL: app.database.url, LOYALTY_MASTER_KEY: TEST_MASTER_KEY });
});
afterAll(async () => {
  await app.close();
});

function login(email: string, password: string, storeId?: number): Promise<Response> {
  return fetch(`${app.baseUrl}/admin/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password, ...(storeId ? { storeId } : {}) }),
  });
}

describe("loyalty admin", () => {
  it("creates a service admin with a piped password, who can then log in", async () => {
    const result = await runCommand(
      ["admin", "create", "--email", "Ops@Example.com", "--password-stdin", "--json"],
      env,
      "correct horse battery staple\n",
    );
    expect(result.code, result.stderr).toBe(0);
    const created = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(created).toMatchObject({ email: "ops@example.com", store: null });
    expect(created).not.toHaveProperty("password");
    const response = await login("ops@example.com", "correct horse battery staple");
    expect(response.status).toBe(200);
    expect(((await response.json()) as { storeId: unknown }).storeId).toBeNull();
  });

  it("generates and prints the password once, for a store admin", async () => {
    const store = await app.context.services.stores.create({ domain: "https://cli-admin.example" });
    const result = await runCommand(
      ["admin", "create", "--email", "merchant@example.com", "--store", store.reference, "--json"],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    const created = JSON.parse(result.stdout) as { password: string; store: string };
    expect(created.store).toBe(store.reference);
    expect(created.password.length).toBeGreaterThanOrEqual(20);
    const response = await login("merchant@example.com", created.password);
    expect(((await response.json()) as { storeId: number }).storeId).toBe(store.id);

    const listed = await runCommand(["admin", "list", "--json"], env);
    expect(listed.stdout).not.toContain(created.password);
    expect(listed.stdout).not.toContain("scrypt");
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ email: "merchant@example.com", storeId: store.id }),
    );
  });

  it("refuses a short password, a duplicate email and an unknown store, creating nothing", async () => {
    const short = await runCommand(
      ["admin", "create", "--email", "a@example.com", "--password-stdin"],
      env,
      "short\n",
    );
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/at least 12 characters/);
    const duplicate = await runCommand(
      ["admin", "create", "--email", "ops@example.com", "--password-stdin"],
      env,
      "another long password\n",
    );
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/exists/);
    const unknown = await runCommand(
      [
        "admin",
        "create",
        "--email",
        "b@example.com",
        "--store",
        "no-such-store",
        "--password-stdin",
      ],
      env,
      "another long password\n",
    );
    expect(unknown.code).toBe(1);
    const emails = (await app.context.services.adminAuth.listAdmins()).map((a) => a.email);
    expect(emails.sort()).toEqual(["merchant@example.com", "ops@example.com"]);
    // The duplicate did not replace the first admin's password.
    expect((await login("ops@example.com", "correct horse battery staple")).status).toBe(200);
  });

  it("disables an admin: their token and their password stop working", async () => {
    const response = await login("ops@example.com", "correct horse battery staple");
    const { accessToken } = (await response.json()) as { accessToken: string };
    const result = await runCommand(["admin", "disable", "ops@example.com"], env);
    expect(result.code, result.stderr).toBe(0);
    const stores = await fetch(`${app.baseUrl}/admin/stores`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(stores.status).toBe(401);
    expect((await login("ops@example.com", "correct horse battery staple")).status).toBe(401);
  });
});
