import { createHmac, timingSafeEqual } from "node:crypto";
import { LoyaltySignatureError } from "./errors.js";
import { WEBHOOK_SIGNATURE_HEADER, type WebhookEvent } from "./generated/contracts.js";

export { WEBHOOK_SIGNATURE_HEADER };

/** How far a signature's time may be from this machine's clock, by default: five minutes. */
export const DEFAULT_WEBHOOK_TOLERANCE = 300;

export interface VerifyOptions {
  /** Seconds a signature's timestamp may be from now (300 by default). */
  tolerance?: number;
}

export interface SignOptions {
  /** Unix seconds; now by default. */
  timestamp?: number;
}

/** A body as received: the exact bytes, as a Buffer or a string. */
export type RawBody = string | Uint8Array;

function hmac(secret: string, timestamp: number, body: RawBody): Buffer {
  return createHmac("sha256", secret).update(`${timestamp}.`, "utf8").update(body).digest();
}

function checkRawBody(rawBody: unknown): asserts rawBody is RawBody {
  if (typeof rawBody !== "string" && !(rawBody instanceof Uint8Array)) {
    throw new TypeError(
      "webhooks.verify needs the raw request body (a string or a Buffer), not a parsed object: " +
        'with Express, read it with express.raw({ type: "application/json" }).',
    );
  }
}

/**
 * Checks a webhook delivery: the `Loyalty-Signature` header (`t=<unix seconds>,v1=<hex
 * HMAC-SHA256 of "<t>.<raw body>">`) must sign this body with this endpoint's secret at a time
 * within the tolerance. Returns the event; throws LoyaltySignatureError otherwise.
 */
function verify(
  rawBody: RawBody,
  signatureHeader: string | readonly string[] | null | undefined,
  secret: string,
  { tolerance = DEFAULT_WEBHOOK_TOLERANCE }: VerifyOptions = {},
): WebhookEvent {
  checkRawBody(rawBody);
  if (typeof secret !== "string" || secret === "") {
    throw new TypeError("webhooks.verify needs the endpoint's secret (whsec_...).");
  }
  const header = Array.isArray(signatureHeader) ? signatureHeader.join(",") : signatureHeader;
  if (typeof header !== "string" || header.trim() === "") {
    throw new LoyaltySignatureError(`No ${WEBHOOK_SIGNATURE_HEADER} header on the request.`);
  }

  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of header.split(",")) {
    const [name, value = ""] = part.trim().split("=", 2);
    if (name === "t" && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    // Several v1 entries are allowed: one per secret while a secret is being rotated.
    else if (name === "v1" && /^[0-9a-f]{64}$/.test(value)) {
      signatures.push(Buffer.from(value, "hex"));
    }
  }
  if (timestamp === undefined || signatures.length === 0) {
    throw new LoyaltySignatureError(
      `The ${WEBHOOK_SIGNATURE_HEADER} header is malformed: expected t=<unix seconds>,v1=<hex>.`,
    );
  }
  if (Math.abs(Date.now() / 1000 - timestamp) > tolerance) {
    throw new LoyaltySignatureError(
      `The signature's timestamp is more than ${tolerance} s away from now: a replay, or a clock out of step.`,
    );
  }
  const expected = hmac(secret, timestamp, rawBody);
  // Every candidate is compared, so the time taken says nothing about which one matched.
  const matches = signatures.map((signature) => timingSafeEqual(expected, signature));
  if (!matches.includes(true)) {
    throw new LoyaltySignatureError(
      "The signature does not match this body and secret: check that the body is the raw one and the secret this endpoint's.",
    );
  }

  const text = typeof rawBody === "string" ? rawBody : Buffer.from(rawBody).toString("utf8");
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch (error) {
    throw new LoyaltySignatureError("The signed body is not JSON.", { cause: error });
  }
  if (
    typeof event !== "object" ||
    event === null ||
    typeof (event as { id?: unknown }).id !== "string" ||
    typeof (event as { type?: unknown }).type !== "string"
  ) {
    throw new LoyaltySignatureError("The signed body is not a Loyalty event.");
  }
  return event as WebhookEvent;
}

/**
 * The `Loyalty-Signature` header value the service would send for `rawBody`: for testing your
 * webhook handler.
 */
function sign(rawBody: RawBody, secret: string, { timestamp }: SignOptions = {}): string {
  checkRawBody(rawBody);
  const t = timestamp ?? Math.floor(Date.now() / 1000);
  return `t=${t},v1=${hmac(secret, t, rawBody).toString("hex")}`;
}

/** Webhook signatures: verify deliveries, sign test ones. */
export const webhooks = { verify, sign };
