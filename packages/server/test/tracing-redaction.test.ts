import type { Attributes, AttributeValue, SpanStatus } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { redactAttribute, redactSpan, type EndingSpan } from "../src/tracing/redaction.js";
import { tracingConfigured } from "../src/tracing/start.js";

const HASH = "ab".repeat(64);
const KEY = "lk_0123456789_TxAfk9VOmd99cnAMXa_5kcf7WFng6dYGniRz7rr0IHM";

/** An ending span as the SDK hands it to a processor: mutable through its methods. */
function endingSpan(fields: {
  name: string;
  attributes: Attributes;
  events?: { attributes?: Attributes }[];
  status?: SpanStatus;
}): EndingSpan & { attributes: Attributes; status: SpanStatus; name: string } {
  const span = {
    name: fields.name,
    attributes: { ...fields.attributes },
    events: fields.events ?? [],
    status: fields.status ?? { code: 0 },
    updateName: (name: string) => (span.name = name),
    setAttribute: (key: string, value: AttributeValue) => (span.attributes[key] = value),
    setStatus: (status: SpanStatus) => (span.status = status),
  };
  return span;
}

describe("span redaction", () => {
  it("redacts the values of hash and token in a query, whatever they look like, and keys anywhere", () => {
    expect(redactAttribute("url.query", `hash=${HASH}&domain=https%3A%2F%2Fs.example`)).toBe(
      "hash=%5Bredacted%5D&domain=https%3A%2F%2Fs.example",
    );
    expect(redactAttribute("url.query", "hash=short&token=abc&access_token=x.y.z")).toBe(
      "hash=%5Bredacted%5D&token=%5Bredacted%5D&access_token=%5Bredacted%5D",
    );
    expect(redactAttribute("url.query", `q=${KEY}`)).toBe("q=lk_0123456789_%5Bredacted%5D");
    expect(redactAttribute("url.full", `http://h/p/${KEY}?hash=1`)).toBe(
      "http://h/p/lk_0123456789_[redacted]?hash=%5Bredacted%5D",
    );
    expect(redactAttribute("url.path", `/admin/stores/1/api-keys/${KEY}`)).toBe(
      "/admin/stores/1/api-keys/lk_0123456789_[redacted]",
    );
    expect(redactAttribute("db.query.text", "SELECT 1 WHERE id = $1")).toBe(
      "SELECT 1 WHERE id = $1",
    );
  });

  it("redacts a span's name, attributes, exception events and status message before export", () => {
    const span = endingSpan({
      name: `GET /x/${KEY}`,
      attributes: {
        "url.path": `/x/${KEY}`,
        "url.query": `hash=${HASH}`,
        "http.response.status_code": 404,
        list: [`a ${HASH}`, null],
      },
      events: [{ attributes: { "exception.message": `No operation at GET /x/${KEY}.` } }],
      status: { code: 2, message: `No operation at GET /x/${KEY}.` },
    });
    redactSpan(span);
    const everything = JSON.stringify(span);
    expect(everything).not.toContain(HASH);
    expect(everything).not.toContain(KEY.slice(14));
    expect(span).toMatchObject({
      name: "GET /x/lk_0123456789_[redacted]",
      attributes: {
        "url.path": "/x/lk_0123456789_[redacted]",
        "url.query": "hash=%5Bredacted%5D",
        "http.response.status_code": 404,
        list: ["a [redacted]", null],
      },
      events: [
        { attributes: { "exception.message": "No operation at GET /x/lk_0123456789_[redacted]." } },
      ],
      status: { code: 2, message: "No operation at GET /x/lk_0123456789_[redacted]." },
    });
  });
});

describe("the tracing switch", () => {
  it("is off without an OTLP endpoint or a named exporter, and when the SDK is disabled", () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_SERVICE_NAME: "x", OTEL_TRACES_SAMPLER: "always_on" })).toBe(
      false,
    );
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: " " })).toBe(false);
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" };
    expect(tracingConfigured({ ...endpoint, OTEL_SDK_DISABLED: "true" })).toBe(false);
    expect(tracingConfigured({ ...endpoint, OTEL_TRACES_EXPORTER: "none" })).toBe(false);
  });

  it("is on with an OTLP endpoint, a traces endpoint, or an exporter named", () => {
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
    expect(
      tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" }),
    ).toBe(true);
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: "otlp" })).toBe(true);
    // As the SDK reads the list: `none` beside another exporter is ignored.
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: "otlp,none" })).toBe(true);
  });
});
