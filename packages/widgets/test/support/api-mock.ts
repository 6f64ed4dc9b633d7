import { calculateManyPointsQuerySchema } from "@loyalty/shared-types";
import { http, HttpResponse, type RequestHandler } from "msw";
import { setupWorker } from "msw/browser";
import { afterAll, afterEach, beforeAll } from "vitest";
import { clearCache } from "../../src/core/api.js";
import {
  API,
  CUSTOMER,
  DOMAIN,
  cartResponse,
  codes,
  history,
  launcherResponse,
  presentationResponse,
  productPointsResponse,
  rewards,
} from "./fixtures.js";

/** Every request the mocked API received, in order. */
export const requests: Request[] = [];

const notFound = () =>
  HttpResponse.json(
    { statusCode: 404, error: "Not Found", message: "Unknown domain" },
    { status: 404 },
  );

/** The API as the real server answers a store of `DOMAIN`, with the fixtures as its data. */
export const defaultHandlers: RequestHandler[] = [
  http.all(`${API}/*`, ({ request }) => {
    if (new URL(request.url).searchParams.get("domain") !== DOMAIN) return notFound();
  }),
  http.get(`${API}/store/widget/product-points`, () => HttpResponse.json(productPointsResponse())),
  http.get(`${API}/store/widget/cart`, () => HttpResponse.json(cartResponse())),
  http.get(`${API}/store/widget/program-presentation`, () =>
    HttpResponse.json(presentationResponse()),
  ),
  http.get(`${API}/store/widget/launcher`, () => HttpResponse.json(launcherResponse())),
  http.get(`${API}/reward/list`, () => HttpResponse.json(rewards)),
  // The demo store's default rule: one point per currency unit, floored.
  // Read by the server's own schema: an item the widgets write wrong is refused, as it would be.
  http.get(`${API}/point/product-points/calculate-many`, ({ request }) => {
    const params = new URL(request.url).searchParams;
    const query = calculateManyPointsQuerySchema.safeParse({
      domain: params.get("domain"),
      items: params.getAll("items"),
    });
    if (!query.success) {
      return HttpResponse.json(
        { statusCode: 400, error: "Bad Request", message: query.error.message },
        { status: 400 },
      );
    }
    return HttpResponse.json({
      items: query.data.items.map(({ product, price, categories = [] }) => ({
        product: product ?? null,
        price,
        categories,
        points: Math.floor(price),
        type: "default",
        id: 1,
      })),
    });
  }),
  http.get(`${API}/point/user-history/:id`, ({ params, request }) => {
    const hash = new URL(request.url).searchParams.get("hash");
    if (params["id"] !== CUSTOMER.id || hash !== CUSTOMER.hash) {
      return HttpResponse.json(
        { statusCode: 401, error: "Unauthorized", message: "Invalid hash" },
        { status: 401 },
      );
    }
    return HttpResponse.json(history());
  }),
  http.get(`${API}/reward/codes/:id`, ({ params, request }) => {
    const hash = new URL(request.url).searchParams.get("hash");
    if (params["id"] !== CUSTOMER.id || hash !== CUSTOMER.hash) {
      return HttpResponse.json(
        { statusCode: 401, error: "Unauthorized", message: "Invalid hash" },
        { status: 401 },
      );
    }
    return HttpResponse.json(codes());
  }),
];

export const worker = setupWorker(...defaultHandlers);
// Every request, whichever handler (a test's own included) answers it.
worker.events.on("request:start", ({ request }) => {
  if (request.url.startsWith(API)) requests.push(request.clone());
});

/** Serves the mocked API to this test file; a request nothing answers fails the test. */
export function useApiMock(): void {
  beforeAll(async () => {
    await worker.start({ quiet: true, onUnhandledRequest: "error" });
  });
  afterEach(() => {
    worker.resetHandlers();
    requests.length = 0;
    clearCache();
    document.body.replaceChildren();
  });
  afterAll(() => worker.stop());
}

/** Answers `path` of the API with `resolver` for the rest of the test, before the defaults. */
export function serve(...handlers: RequestHandler[]): void {
  worker.use(...handlers);
}

/** The products of a calculate-many request, each as calculate's query would name it. */
export function batchItems(request: Request): Record<string, string>[] {
  const params = new URL(request.url).searchParams;
  const domain = params.get("domain") ?? "";
  return params
    .getAll("items")
    .flatMap((items) => items.split(","))
    .map((item) => {
      const [product, price, categories] = item.split(":");
      return {
        domain,
        ...(product ? { product } : {}),
        ...(categories ? { categories: categories.split("|").join(",") } : {}),
        price: price ?? "",
      };
    });
}

/** Every product the widgets asked the points of, request after request. */
export function calculated(): Record<string, string>[] {
  return requestsTo("/point/product-points/calculate-many").flatMap(batchItems);
}

/** The requests to a path of the API (query strings aside). */
export function requestsTo(path: string): Request[] {
  return requests.filter((request) => new URL(request.url).pathname === path);
}

export { API, HttpResponse, http };
