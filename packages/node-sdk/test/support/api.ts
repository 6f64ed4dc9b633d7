import { OPERATION_EXAMPLES } from "@loyalty/shared-types";
import { http, HttpResponse, type JsonBodyType } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll } from "vitest";
import { LoyaltyClient, type LoyaltyClientOptions } from "../../src/index.js";
import type { ApiRevision } from "../../src/revision.js";

/** The credentials of shared-types' examples: their customer hash is computed with them. */
export const CREDENTIALS = {
  apiKey: OPERATION_EXAMPLES.createApiKey.response.key,
  storeReference: OPERATION_EXAMPLES.createStore.response.reference,
  domain: "https://shop.example",
  baseUrl: "https://loyalty.test",
};

export const server = setupServer();

/** Starts the mock API for the file's tests; a request it has no handler for fails the test. */
export function useMockApi(): void {
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
}

export function client<R extends ApiRevision = "2026-08-26">(
  options: Partial<LoyaltyClientOptions<R>> = {},
): LoyaltyClient<R> {
  return new LoyaltyClient<R>({ ...CREDENTIALS, ...options });
}

export interface Recorded {
  method: string;
  url: URL;
  headers: Headers;
  body: unknown;
}

type Responder = (request: Recorded, attempt: number) => Response | Promise<Response>;

/**
 * Answers `method path` with `respond` and records every request it receives (its body parsed
 * as JSON when there is one); `attempt` counts from 0.
 */
export function answer(method: "get" | "post", path: string, respond: Responder): Recorded[] {
  const seen: Recorded[] = [];
  server.use(
    http[method](`${CREDENTIALS.baseUrl}${path}`, async ({ request }) => {
      const text = await request.text();
      const recorded: Recorded = {
        method: request.method,
        url: new URL(request.url),
        headers: request.headers,
        body: text === "" ? undefined : JSON.parse(text),
      };
      seen.push(recorded);
      return respond(recorded, seen.length - 1);
    }),
  );
  return seen;
}

export function json(body: JsonBodyType, status = 200, headers: Record<string, string> = {}) {
  return HttpResponse.json(body, { status, headers: { "x-request-id": "req-42", ...headers } });
}

/** A problem object as the server renders it from revision 2026-08-26. */
export function problem(
  reason: string,
  status: number,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  return new HttpResponse(
    JSON.stringify({
      type: `https://problems.loyalty.test/${reason}`,
      title: reason,
      status,
      detail: `detail of ${reason}`,
      instance: "/somewhere",
      requestId: "req-problem",
      ...extra,
    }),
    {
      status,
      headers: {
        "content-type": "application/problem+json",
        "x-request-id": "req-problem",
        ...headers,
      },
    },
  );
}

/** The error body of revisions before 2026-08-26. */
export function legacy(status: number, error: string, message: string) {
  return json({ statusCode: status, error, message }, status, { "x-request-id": "req-legacy" });
}
