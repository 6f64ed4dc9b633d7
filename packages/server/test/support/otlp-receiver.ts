import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A span as an OTLP/HTTP JSON export carries it, its attributes as a plain object. */
export interface ReceivedSpan {
  /** The exporting process's `service.name`. */
  service: string;
  /** The instrumentation that made it (`@opentelemetry/instrumentation-http`…). */
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  attributes: Record<string, unknown>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: KeyValue[];
      }[];
    }[];
  }[];
}

const valueOf = (value: AnyValue): unknown =>
  value.arrayValue ? (value.arrayValue.values ?? []).map(valueOf) : Object.values(value)[0];

const attributesOf = (attributes: KeyValue[] = []) =>
  Object.fromEntries(attributes.map(({ key, value }) => [key, valueOf(value)]));

export interface OtlpReceiver {
  /** What an OTLP exporter takes as OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string;
  /** Every body received, as sent: to look for what must not be there. */
  bodies: string[];
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

/**
 * The collector's side of OTLP/HTTP with JSON bodies (OTEL_EXPORTER_OTLP_PROTOCOL=http/json), at
 * `/v1/traces`: what a deployment's OpenTelemetry Collector would receive.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      if (request.url === "/v1/traces") bodies.push(body);
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bodies,
    spans: () =>
      bodies.flatMap((body) =>
        ((JSON.parse(body) as ExportRequest).resourceSpans ?? []).flatMap((resourceSpans) => {
          const service = String(attributesOf(resourceSpans.resource?.attributes)["service.name"]);
          return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
            (scopeSpans.spans ?? []).map((span) => ({
              service,
              scope: scopeSpans.scope?.name ?? "",
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              attributes: attributesOf(span.attributes),
            })),
          );
        }),
      ),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
