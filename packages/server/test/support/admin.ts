import { randomBytes } from "node:crypto";
import type { TestApp } from "./app.js";

export interface AdminSession {
  email: string;
  password: string;
  token: string;
  /** Calls the admin API with the bearer token (JSON body when given). */
  request(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Response>;
}

/**
 * An admin created as the CLI creates them, logged in through POST /admin/token: of the whole
 * service, or of the store with `storeReference`; `storeId` asks for a token limited to it.
 */
export async function adminSession(
  app: TestApp,
  options: { storeReference?: string; storeId?: number } = {},
): Promise<AdminSession> {
  const email = `admin-${randomBytes(4).toString("hex")}@example.com`;
  const password = randomBytes(12).toString("base64url");
  await app.context.services.adminAuth.createAdmin({
    email,
    password,
    ...(options.storeReference ? { storeReference: options.storeReference } : {}),
  });
  const response = await fetch(`${app.baseUrl}/admin/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      email,
      password,
      ...(options.storeId ? { storeId: options.storeId } : {}),
    }),
  });
  if (response.status !== 200)
    throw new Error(`token: ${response.status} ${await response.text()}`);
  const { accessToken: token } = (await response.json()) as { accessToken: string };
  return {
    email,
    password,
    token,
    request: (method, path, body, headers = {}) =>
      fetch(`${app.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          revision: "2026-08-26",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
  };
}
