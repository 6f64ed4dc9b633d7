import {
  ADMIN_OPERATIONS,
  OPERATION_EXAMPLES,
  OPERATIONS,
  PROBLEM_CONTENT_TYPE,
  type ErrorReason,
  type ValidationIssue,
} from "@loyalty/shared-types";
import { delay, http, HttpResponse, type RequestHandler } from "msw";
import { setupWorker } from "msw/browser";
import { afterAll, afterEach, beforeAll } from "vitest";
import { ADMIN, OTHER_STORE, STORE, problem, tokenResponse } from "./fixtures.js";

/*
 * The API, mocked in the page by msw's service worker (public/mockServiceWorker.js). The app
 * calls relative URLs (`/admin/...`): handlers use the same paths. A request no handler answers
 * fails the test.
 */

/** Every request the mocked API received, in order (clones: read their bodies freely). */
export const requests: Request[] = [];

/** An error answer as the server sends it: problem+json with the reason's status. */
export function problemResponse(
  reason: ErrorReason,
  detail: string,
  errors?: ValidationIssue[],
): HttpResponse<string> {
  const body = problem(reason, detail, errors);
  return new HttpResponse(JSON.stringify(body), {
    status: body.status,
    headers: { "content-type": PROBLEM_CONTENT_TYPE },
  });
}

/** The 401 of a request without a bearer token, or undefined when it has one. */
export function refuseWithoutToken(request: Request): HttpResponse<string> | undefined {
  return /^Bearer \S+$/.test(request.headers.get("authorization") ?? "")
    ? undefined
    : problemResponse("unauthorized", "The access token is missing or has expired.");
}

const METHODS = {
  GET: http.get,
  POST: http.post,
  PUT: http.put,
  PATCH: http.patch,
  DELETE: http.delete,
} as const;

/** The example answer of an operation, at the latest revision when it varies. */
function exampleResponse(name: string): unknown {
  const response = (OPERATION_EXAMPLES as Record<string, { response?: unknown }>)[name]?.response;
  if (response && typeof response === "object" && "2026-06-18" in response) {
    return (response as Record<string, unknown>)["2026-06-18"];
  }
  return response;
}

/**
 * Every other operation (the back-office's, and the storefront's that the widget previews
 * call) answers its contract's example (OPERATION_EXAMPLES), so that any screen shows
 * something real; a test serves its own answers with `serve()`.
 */
const exampleHandlers: RequestHandler[] = Object.entries({ ...ADMIN_OPERATIONS, ...OPERATIONS })
  .filter(([name]) => name !== "createAdminToken" && name !== "listStores")
  .map(([name, operation]) =>
    METHODS[operation.method](operation.path.replace(/\{(\w+)\}/g, ":$1"), ({ request }) => {
      if (operation.auth === "bearer") {
        const refused = refuseWithoutToken(request);
        if (refused) return refused;
      }
      const example = exampleResponse(name);
      return example === undefined || operation.successStatus === 204
        ? new HttpResponse(null, { status: 204 })
        : HttpResponse.json(structuredClone(example), { status: operation.successStatus });
    }),
  );

/**
 * The service as the app first meets it: one admin (ADMIN, a service admin), two stores, and
 * the contract's example answer for every other operation.
 */
export const defaultHandlers: RequestHandler[] = [
  http.post("/admin/token", async ({ request }) => {
    const body = (await request.json()) as { email?: string; password?: string };
    if (body.email !== ADMIN.email || body.password !== ADMIN.password) {
      return problemResponse("unauthorized", "The email or the password is wrong.");
    }
    return HttpResponse.json(tokenResponse({ storeId: null }));
  }),
  http.get("/admin/stores", ({ request }) => {
    const refused = refuseWithoutToken(request);
    if (refused) return refused;
    // A store token lists its own store only.
    return HttpResponse.json(
      request.headers.get("authorization") === `Bearer test-token-${STORE.id}`
        ? [STORE]
        : [STORE, OTHER_STORE],
    );
  }),
  ...exampleHandlers,
];

export const worker = setupWorker(...defaultHandlers);
worker.events.on("request:start", ({ request }) => {
  if (new URL(request.url).pathname.startsWith("/admin/")) requests.push(request.clone());
});

/** Serves the mocked API to this test file. */
export function useApiMock(): void {
  beforeAll(async () => {
    await worker.start({ quiet: true, onUnhandledRequest: "error" });
  });
  afterEach(() => {
    worker.resetHandlers();
    requests.length = 0;
  });
  afterAll(() => worker.stop());
}

/** Answers with `handlers` for the rest of the test, before the defaults. */
export function serve(...handlers: RequestHandler[]): void {
  worker.use(...handlers);
}

/** The requests to a path (query strings aside). */
export function requestsTo(path: string): Request[] {
  return requests.filter((request) => new URL(request.url).pathname === path);
}

/** A response that waits until `release()` is called: to see a loading state. */
export function held(): { wait: () => Promise<void>; release: () => void } {
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  return { wait: () => gate, release };
}

export { delay, http, HttpResponse };
