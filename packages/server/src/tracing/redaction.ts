import type { Attributes, AttributeValue, SpanStatus } from "@opentelemetry/api";
import { redactedQueryValue, redactSecrets } from "../http/logger.js";

/** Attributes holding a URL or a request target, whose query is redacted as `url.query` is. */
const URL_ATTRIBUTES = new Set(["url.full", "http.url", "http.target"]);

/** A query string with the values that authenticate, and anything shaped as a key or hash, redacted. */
function redactQuery(query: string): string {
  const redacted = new URLSearchParams();
  for (const [name, value] of new URLSearchParams(query)) {
    redacted.append(redactSecrets(name), redactedQueryValue(name, value));
  }
  return redacted.toString();
}

/** An attribute's text as a span may carry it: the rules of the log lines (src/http/logger.ts). */
export function redactAttribute(key: string, text: string): string {
  if (key === "url.query") return redactQuery(text);
  if (URL_ATTRIBUTES.has(key)) {
    const at = text.indexOf("?");
    if (at !== -1) return `${redactSecrets(text.slice(0, at))}?${redactQuery(text.slice(at + 1))}`;
  }
  return redactSecrets(text);
}

function redactValue(key: string, value: AttributeValue): AttributeValue {
  if (typeof value === "string") return redactAttribute(key, value);
  if (!Array.isArray(value)) return value;
  const items: unknown[] = value;
  return items.map((item) => (typeof item === "string" ? redactAttribute(key, item) : item));
}

/** The part of the SDK's span that redaction reads and writes, while the span is ending. */
export interface EndingSpan {
  readonly name: string;
  readonly attributes: Attributes;
  readonly events: readonly { attributes?: Attributes }[];
  readonly status: SpanStatus;
  updateName(name: string): unknown;
  setAttribute(key: string, value: AttributeValue): unknown;
  setStatus(status: SpanStatus): unknown;
}

function redactAttributes(
  attributes: Attributes,
  set: (key: string, value: AttributeValue) => void,
) {
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    const redacted = redactValue(key, value);
    if (redacted !== value) set(key, redacted);
  }
}

/**
 * Redacts a span before it is exported, as its last attributes are known: the request's path
 * and query (an API key in a path, the customer `hash` in a query), an error's message and
 * stack that echo them (the exception events), its name and status message. The
 * instrumentations record no headers (no `headersToSpanAttributes`) and no query parameters
 * (no `enhancedDatabaseReporting`): this is the net for what they do record.
 */
export function redactSpan(span: EndingSpan): void {
  const name = redactSecrets(span.name);
  if (name !== span.name) span.updateName(name);
  redactAttributes(span.attributes, (key, value) => span.setAttribute(key, value));
  for (const event of span.events) {
    const attributes = event.attributes;
    if (attributes) redactAttributes(attributes, (key, value) => (attributes[key] = value));
  }
  const message = span.status.message;
  if (message !== undefined && redactSecrets(message) !== message) {
    span.setStatus({ code: span.status.code, message: redactSecrets(message) });
  }
}
