import type {
  CalculateManyPointsResponse,
  CalculatePointsResponse,
  CartWidgetResponse,
  ClaimRefusal,
  ClaimRewardResponse,
  CreateReferralRequest,
  CreateReferralResponse,
  CustomerCodesResponse,
  CustomerHistoryResponseV2,
  LauncherWidgetResponse,
  ProductPointsWidgetResponse,
  ProgramPresentationWidgetResponse,
  RewardListResponse,
} from "@loyalty/shared-types";

/** The revision of the requests whose shape or headers need one: the claim, the history. */
export const API_REVISION = "2026-08-26";

/** A request that has not answered by then has failed: the store's page must not wait on us. */
const TIMEOUT_MS = 10_000;

/** Where the API is and which store the page belongs to. */
export interface Endpoint {
  apiBase: string;
  domain: string;
}

/** The customer as the store's server identified them: id and HMAC hash, never the key. */
export interface Customer {
  id: string;
  hash: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The problem's reason (`referral-already-pending`), when the answer named one. */
    readonly reason?: string,
  ) {
    super(message);
    this.name = "LoyaltyApiError";
  }
}

export interface WidgetResponses {
  cart: CartWidgetResponse;
  "product-points": ProductPointsWidgetResponse;
  "program-presentation": ProgramPresentationWidgetResponse;
  launcher: LauncherWidgetResponse;
}

function url(endpoint: Endpoint, path: string, query: Record<string, string | undefined> = {}) {
  const params = new URLSearchParams({ domain: endpoint.domain });
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) params.set(name, value);
  }
  return `${endpoint.apiBase.replace(/\/+$/, "")}${path}?${params}`;
}

/**
 * One request and the reading of its answer, bounded together: a server that sends headers and
 * then stalls must not leave a widget loading forever.
 */
async function send<T>(
  target: string,
  init: RequestInit,
  read: (response: Response) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
  try {
    // No cookie ever: the customer is identified by the hash the store's server computed.
    const response = await fetch(target, {
      ...init,
      credentials: "omit",
      signal: controller.signal,
    });
    return await read(response);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(0, error instanceof Error ? error.message : String(error));
  } finally {
    clearTimeout(timer);
  }
}

async function failure(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => ({}))) as {
    type?: string;
    detail?: string;
    message?: string;
  };
  // A problem's type ends with its reason: https://…/problems/referral-already-pending.
  const reason = typeof body.type === "string" ? body.type.split("/").pop() : undefined;
  return new ApiError(response.status, body.detail ?? body.message ?? response.statusText, reason);
}

/**
 * Reads in flight or done, by URL: every widget of the page shares one request per resource.
 * A read that could not be made, or that the server failed, is forgotten, so the next render
 * may try again; a refusal (4xx: an unknown domain, a stale hash, a rate limit) is kept for the
 * page's life: asking again would only be refused again, and add to a shared address's count.
 */
const reads = new Map<string, Promise<unknown>>();

/** Whether a failure is worth asking again: not a refusal of the request itself. */
const retriable = (error: unknown) =>
  !(error instanceof ApiError && error.status >= 400 && error.status < 500);

/**
 * The public GETs are CORS "simple" requests (no custom header, so no preflight): a product
 * page makes one request per read, not two. They are served the oldest supported revision,
 * whose contract for these reads is the same as the latest's; only error bodies differ, and
 * both are read. `headers` are for the reads whose shape differs between revisions.
 */
function read<T>(target: string, headers?: Record<string, string>): Promise<T> {
  let pending = reads.get(target);
  if (!pending) {
    pending = send(target, { headers }, async (response) => {
      if (!response.ok) throw await failure(response);
      return response.json() as Promise<unknown>;
    });
    reads.set(target, pending);
    pending.catch((error: unknown) => {
      if (retriable(error)) reads.delete(target);
    });
  }
  return pending as Promise<T>;
}

/** The causes already told on this page's console: each once, whichever widget met it. */
const told = new Set<string>();

function tell(cause: string, message: string): void {
  if (told.has(cause)) return;
  told.add(cause);
  // The merchant's diagnostics: the console is where a theme developer looks.
  // eslint-disable-next-line no-console
  console.warn(`Loyalty widgets: ${message}`);
}

/** An origin as the server compares a store's domain: lower case, no trailing slash. */
const sameOrigin = (a: string, b: string) =>
  a.toLowerCase().replace(/\/+$/, "") === b.toLowerCase().replace(/\/+$/, "");

/**
 * Tells the merchant, once, why a public read was refused when it is their configuration: the
 * store's domain is not declared on this server.
 */
function diagnosePublic(endpoint: Endpoint, error: unknown): void {
  if (error instanceof ApiError && error.status === 404) {
    tell(
      `domain ${endpoint.domain}`,
      `the loyalty server at ${endpoint.apiBase} has no store with the domain "${endpoint.domain}". Declare it in the back-office, or correct data-domain (the store's origin, as https://shop.example).`,
    );
  }
}

/**
 * Tells the merchant, once, why a customer's read or claim cannot work here: this page is on
 * another origin than the store's (the server answers customer operations to the store's own
 * pages only), or the customer hash does not match.
 */
function diagnoseCustomer(endpoint: Endpoint, customer: Customer, error?: unknown): void {
  if (!sameOrigin(location.origin, endpoint.domain)) {
    tell(
      `origin ${endpoint.domain}`,
      `this page's origin (${location.origin}) is not the store's domain (${endpoint.domain}): the loyalty server answers a customer's points, claims and referrals to the store's own pages only.`,
    );
  }
  if (error instanceof ApiError && error.status === 401) {
    tell(
      `hash ${endpoint.domain}`,
      `the customer hash of customer ${customer.id} does not match. Compute it on the store's server as the hex HMAC-SHA512 of the customer id, keyed with "<store reference>:<API key>" (the Node SDK's customerHash), for the customer signed in.`,
    );
  }
}

/** Forgets every read: the next render asks the API again (a customer signed in, say). */
export function clearCache(): void {
  reads.clear();
  products.clear();
}

export function widgetConfig<K extends keyof WidgetResponses>(
  endpoint: Endpoint,
  kind: K,
): Promise<WidgetResponses[K]> {
  const pending = read<WidgetResponses[K]>(url(endpoint, `/store/widget/${kind}`));
  pending.catch((error: unknown) => diagnosePublic(endpoint, error));
  return pending;
}

export interface ProductQuery {
  product?: string | undefined;
  categories?: string | undefined;
  price: number;
}

/** Products per calculate-many request: the server's MAX_BATCH_PRODUCTS. */
export const BATCH_LIMIT = 100;
/**
 * Characters of items per request: 100 products of long ids and many categories, encoded, would
 * pass the 8 KB of a URL that nginx and CloudFront accept by default, and be refused whole.
 */
export const BATCH_CHARACTERS = 3_000;
const WHOLE_NUMBER = /^\d{1,16}$/;

/** An id calculate takes: a whole number within JavaScript's safe integers. */
const isId = (text: string) => WHOLE_NUMBER.test(text) && Number(text) <= Number.MAX_SAFE_INTEGER;

/**
 * A product as calculate-many reads it (`<product>:<price>[:<category>|…]`), or undefined when
 * calculate would refuse it: one wrong product must not take its batch's down with it.
 */
function batchItem(query: ProductQuery): string | undefined {
  const product = query.product?.trim() ?? "";
  const categories = (query.categories ?? "")
    .split(",")
    .map((category) => category.trim())
    .filter((category) => category !== "");
  const { price } = query;
  if (product !== "" && !isId(product)) return undefined;
  if (!categories.every(isId)) return undefined;
  if (!(price >= 1 && price <= 1_000_000_000)) return undefined;
  return `${product}:${price}${categories.length > 0 ? `:${categories.join("|")}` : ""}`;
}

interface Waiter {
  resolve: (points: CalculatePointsResponse) => void;
  reject: (error: unknown) => void;
}

/** The products asked for this frame, per store, each with whoever waits for it. */
const batches = new Map<string, { endpoint: Endpoint; items: Map<string, Waiter[]> }>();
/** Each product's points, asked or known, per store: like `reads`, a failure is forgotten
 * unless it was a refusal. */
const products = new Map<string, Promise<CalculatePointsResponse>>();

/** After the next frame (every element of the page has asked by then), or soon in a tab that draws none. */
function afterFrame(run: () => void): void {
  let ran = false;
  const once = () => {
    if (!ran) {
      ran = true;
      run();
    }
  };
  requestAnimationFrame(once);
  setTimeout(once, 100);
}

/** The items in requests of at most BATCH_LIMIT products and BATCH_CHARACTERS characters. */
function chunks(items: readonly string[]): string[][] {
  const result: string[][] = [];
  let chunk: string[] = [];
  let characters = 0;
  for (const item of items) {
    const size = encodeURIComponent(item).length + 3;
    if (
      chunk.length === BATCH_LIMIT ||
      (chunk.length > 0 && characters + size > BATCH_CHARACTERS)
    ) {
      result.push(chunk);
      chunk = [];
      characters = 0;
    }
    chunk.push(item);
    characters += size;
  }
  if (chunk.length > 0) result.push(chunk);
  return result;
}

/** Asks one chunk's points and settles each of its waiters, whatever the answer. */
async function askChunk(
  endpoint: Endpoint,
  chunk: readonly string[],
  waiting: Map<string, Waiter[]>,
): Promise<void> {
  try {
    // Sent, not read: the answers are kept per product (`products`), not per URL.
    const answer = await send(
      url(endpoint, "/point/product-points/calculate-many", { items: chunk.join(",") }),
      {},
      async (response) => {
        if (!response.ok) throw await failure(response);
        return (await response.json()) as CalculateManyPointsResponse;
      },
    );
    const found = Array.isArray(answer?.items) ? answer.items : [];
    chunk.forEach((item, index) => {
      const points = found[index];
      for (const waiter of waiting.get(item) ?? []) {
        if (points) waiter.resolve({ points: points.points, type: points.type, id: points.id });
        else waiter.reject(new ApiError(0, "The answer left out a product."));
      }
    });
  } catch (error) {
    diagnosePublic(endpoint, error);
    for (const item of chunk) for (const waiter of waiting.get(item) ?? []) waiter.reject(error);
  }
}

function sendBatch(store: string): void {
  const batch = batches.get(store);
  batches.delete(store);
  if (!batch) return;
  // Sorted: the same page asks the same URLs, which the browser and a CDN may have kept.
  for (const chunk of chunks([...batch.items.keys()].sort())) {
    void askChunk(batch.endpoint, chunk, batch.items);
  }
}

/**
 * The points one unit of a product earns. Every product asked within a frame, by every element
 * of the page, joins one calculate-many request: a collection page of 60 products asks once.
 */
export function calculatePoints(
  endpoint: Endpoint,
  query: ProductQuery,
): Promise<CalculatePointsResponse> {
  const item = batchItem(query);
  if (item === undefined) {
    return Promise.reject(new ApiError(400, "The product's id, categories or price is invalid."));
  }
  const store = `${endpoint.apiBase} ${endpoint.domain}`;
  const key = `${store} ${item}`;
  let pending = products.get(key);
  if (!pending) {
    pending = new Promise<CalculatePointsResponse>((resolve, reject) => {
      let batch = batches.get(store);
      if (!batch) {
        batch = { endpoint, items: new Map() };
        batches.set(store, batch);
        afterFrame(() => sendBatch(store));
      }
      // Asked again after clearCache() while the first ask waits: both get the answer.
      const waiters = batch.items.get(item);
      if (waiters) waiters.push({ resolve, reject });
      else batch.items.set(item, [{ resolve, reject }]);
    });
    const settled = pending;
    products.set(key, settled);
    // Only this ask's own entry: a newer one (after clearCache) stays.
    settled.catch((error: unknown) => {
      if (retriable(error) && products.get(key) === settled) products.delete(key);
    });
  }
  return pending;
}

export function rewardList(endpoint: Endpoint): Promise<RewardListResponse> {
  const pending = read<RewardListResponse>(url(endpoint, "/reward/list"));
  pending.catch((error: unknown) => diagnosePublic(endpoint, error));
  return pending;
}

const HISTORY_PATH = "/point/user-history/";

export function customerHistory(
  endpoint: Endpoint,
  customer: Customer,
  cursor?: string,
): Promise<CustomerHistoryResponseV2> {
  diagnoseCustomer(endpoint, customer);
  // Pinned to a revision that names orders as customers know them ("#1001"), where the oldest
  // gives the platform's id. It costs one preflight per customer, cached by the browser.
  const pending = read<CustomerHistoryResponseV2>(
    url(endpoint, `${HISTORY_PATH}${encodeURIComponent(customer.id)}`, {
      hash: customer.hash,
      limit: "10",
      cursor,
    }),
    { revision: API_REVISION },
  );
  pending.catch((error: unknown) => diagnoseCustomer(endpoint, customer, error));
  return pending;
}

const CODES_PATH = "/reward/codes/";

/**
 * The reward codes the customer can still use. No revision header: the answer is the same in
 * every revision, so the read stays a CORS simple request, without a preflight.
 */
export function customerCodes(
  endpoint: Endpoint,
  customer: Customer,
): Promise<CustomerCodesResponse> {
  diagnoseCustomer(endpoint, customer);
  const pending = read<CustomerCodesResponse>(
    url(endpoint, `${CODES_PATH}${encodeURIComponent(customer.id)}`, { hash: customer.hash }),
  );
  pending.catch((error: unknown) => diagnoseCustomer(endpoint, customer, error));
  return pending;
}

/** Every read of a customer's balance and codes is stale once a claim moved them. */
function forgetCustomerReads(): void {
  for (const key of reads.keys()) {
    if (key.includes(HISTORY_PATH) || key.includes(CODES_PATH)) reads.delete(key);
  }
}

function idempotencyKey(): string {
  // crypto.randomUUID exists only on secure pages; many stores still have http ones.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export type ClaimResult = ClaimRewardResponse | ClaimRefusal;

/**
 * Exchanges points for a voucher code. A refusal (`code: null`) is a result, not an error.
 * One Idempotency-Key is kept across the retries of a lost answer, so the customer is debited
 * once and still gets their code.
 */
export async function claimReward(
  endpoint: Endpoint,
  customer: Customer,
  rewardId: number,
): Promise<ClaimResult> {
  const target = url(endpoint, `/reward/claim/${encodeURIComponent(customer.id)}`, {
    hash: customer.hash,
  });
  const init: RequestInit = {
    method: "POST",
    headers: {
      "content-type": "application/json",
      revision: API_REVISION,
      "idempotency-key": idempotencyKey(),
    },
    body: JSON.stringify({ rewardId }),
  };
  const answer = async (response: Response): Promise<ClaimResult | "retry"> => {
    if (response.status === 201) return (await response.json()) as ClaimRewardResponse;
    if (response.status >= 500 && response.headers.has("retry-after")) return "retry";
    if (response.status === 404 && !response.headers.get("content-type")?.includes("problem")) {
      const body = (await response.json().catch(() => ({}))) as Partial<ClaimRefusal>;
      if (body.code === null) return body as ClaimRefusal;
    }
    throw await failure(response);
  };
  diagnoseCustomer(endpoint, customer);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await send(target, init, answer);
        if (result !== "retry") return result;
      } catch (error) {
        // A lost answer is asked again; an answer that says no is final.
        diagnoseCustomer(endpoint, customer, error);
        if (!(error instanceof ApiError && error.status === 0)) throw error;
        if (attempt >= 2) throw error;
      }
      if (attempt >= 2) throw new ApiError(503, "the claim could not be completed");
      await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt));
    }
  } finally {
    // Whatever came of it, the balance may have moved: the next history read asks the API.
    forgetCustomerReads();
  }
}

/**
 * Invites a friend by email: the server sends the invitation. A refusal (the friend is already
 * a customer, or already invited) is an ApiError whose `reason` says which.
 */
export async function inviteFriend(
  endpoint: Endpoint,
  customer: Customer,
  friend: CreateReferralRequest,
): Promise<CreateReferralResponse> {
  const target = url(endpoint, "/point/referral", {
    externalId: customer.id,
    hash: customer.hash,
  });
  diagnoseCustomer(endpoint, customer);
  try {
    return await send(
      target,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          revision: API_REVISION,
          "idempotency-key": idempotencyKey(),
        },
        body: JSON.stringify(friend),
      },
      async (response) => {
        if (response.status === 201) return (await response.json()) as CreateReferralResponse;
        throw await failure(response);
      },
    );
  } catch (error) {
    diagnoseCustomer(endpoint, customer, error);
    throw error;
  }
}
