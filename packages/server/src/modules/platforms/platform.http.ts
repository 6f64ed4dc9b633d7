import {
  type Outbound,
  OutboundError,
  type OutboundRequest,
  type OutboundResponse,
} from "../../net/outbound.js";
import { PlatformError, type PlatformFailureReason } from "./platform.types.js";

/** What the platform answered: any status, with its body parsed as JSON when it is JSON. */
export interface PlatformResponse {
  status: number;
  /** Parsed JSON, the text when it is not JSON, undefined when empty. */
  body: unknown;
}

/**
 * The reason a platform's HTTP status means, as DESIGN.md maps them: credentials refused
 * (401/403), missing resource (404), any other 4xx refused; 5xx did not answer. 429 is the
 * platform asking to come back later: "did not answer; retry" (502), not a refusal.
 */
export function reasonForStatus(status: number): PlatformFailureReason {
  if (status === 401 || status === 403) return "platform-credentials-rejected";
  if (status === 404) return "platform-resource-not-found";
  if (status === 429 || status >= 500) return "platform-unavailable";
  return "platform-request-rejected";
}

/**
 * A failure the platform's status told, and how long its body was: what a log may say of an
 * answer whose words it must not hold (a shop in debug mode echoes credentials).
 */
export class PlatformStatusError extends PlatformError {
  constructor(
    reason: PlatformFailureReason,
    message: string,
    status: number,
    /** Characters of the body as text (JSON as serialised again), 0 when it was empty. */
    readonly bodyLength: number,
  ) {
    super(reason, message, { status });
  }
}

/** Throws the PlatformError an unexpected status means, with what the platform said. */
export function failForStatus(platform: string, response: PlatformResponse): never {
  const said =
    typeof response.body === "string" ? response.body : JSON.stringify(response.body ?? "");
  throw new PlatformStatusError(
    reasonForStatus(response.status),
    `${platform} answered HTTP ${response.status}: ${said.slice(0, 500)}`,
    response.status,
    response.body === undefined ? 0 : said.length,
  );
}

/** How an adapter reaches its platform: the process's outbound module and its timeout. */
export interface PlatformHttpOptions {
  timeoutMs: number;
  /** The process's, built once from ALLOW_PRIVATE_URLS. */
  outbound: Outbound;
}

/**
 * One HTTP request to a platform, through the outbound module (checked address, capped answer,
 * no redirect followed), bounded by `timeoutMs`. Resolves with whatever status the platform
 * answered (adapters read some 4xx, such as "code already exists"); no answer, or one larger
 * than the cap, throws platform-unavailable. Messages never contain the request's headers,
 * where the credentials are.
 */
export async function platformFetch(
  platform: string,
  url: string,
  init: Omit<OutboundRequest, "readBody"> & { outbound: Outbound },
): Promise<PlatformResponse> {
  const { outbound, ...request } = init;
  let response: OutboundResponse;
  try {
    response = await outbound.request(url, request);
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    throw new PlatformError("platform-unavailable", `${platform}: ${error.message}`, {
      cause: error,
    });
  }
  if (response.status >= 300 && response.status < 400) {
    throw new PlatformStatusError(
      "platform-resource-not-found",
      `${platform} answered a redirect (HTTP ${response.status}), which is not followed: check the platform URL`,
      response.status,
      response.text.length,
    );
  }
  const { text } = response;
  let body: unknown = text === "" ? undefined : text;
  if (text !== "" && /json/i.test(response.headers.get("content-type") ?? "")) {
    try {
      body = JSON.parse(text);
    } catch {
      // Kept as text: a proxy's error page labelled JSON says more than a parse error.
    }
  }
  return { status: response.status, body };
}
