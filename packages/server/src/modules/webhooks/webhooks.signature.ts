import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The `Loyalty-Signature` header, Stripe style: `t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<raw body>">`. Signing the timestamp with the body lets a receiver refuse a captured
 * request replayed later.
 */

/** How far a signature's timestamp may be from the receiver's clock, by default. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

function hmacHex(secret: string, body: string, timestamp: number): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`, "utf8").digest("hex");
}

/** The header value for `body` (the exact bytes sent) at `timestamp` (unix seconds). */
export function signWebhook(secret: string, body: string, timestamp: number): string {
  return `t=${timestamp},v1=${hmacHex(secret, body, timestamp)}`;
}

export interface VerifyOptions {
  toleranceSeconds?: number;
  /** The receiver's clock, in milliseconds. */
  now?: number;
}

/**
 * Whether `header` signs `body` with `secret` at a time within the tolerance. Several `v1`
 * entries are accepted so that a signer may send one per secret while a secret is rotated.
 */
export function verifyWebhookSignature(
  secret: string,
  body: string,
  header: string,
  { toleranceSeconds = DEFAULT_TOLERANCE_SECONDS, now = Date.now() }: VerifyOptions = {},
): boolean {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const [name, value] = part.trim().split("=", 2);
    if (name === "t" && value !== undefined && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (name === "v1" && value !== undefined && /^[0-9a-f]{64}$/.test(value)) {
      signatures.push(value);
    }
  }
  if (timestamp === undefined || signatures.length === 0) return false;
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(hmacHex(secret, body, timestamp), "hex");
  // Every candidate is compared, matched or not, so timing tells nothing about which matched.
  return signatures
    .map((signature) => timingSafeEqual(expected, Buffer.from(signature, "hex")))
    .includes(true);
}
