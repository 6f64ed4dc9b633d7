import { createRequire } from "node:module";
import type * as Api from "@opentelemetry/api";
import type * as ExpressModule from "@opentelemetry/instrumentation-express";
import type * as HttpModule from "@opentelemetry/instrumentation-http";
import type * as PgModule from "@opentelemetry/instrumentation-pg";
import type * as Sdk from "@opentelemetry/sdk-node";
import type * as SdkFromEnvironment from "@opentelemetry/sdk-node/build/src/utils.js";
import type { JobHelpers, Task, TaskList } from "graphile-worker";
import { redactSpan } from "./redaction.js";
import { setActiveTracing } from "./tracing.js";

/**
 * OpenTelemetry is loaded with `require`, synchronously, and only here: a process that does not
 * trace loads none of it, and one that does has its instrumentations hooked before the first
 * module they patch is evaluated (see `startTracing`).
 */
const require = createRequire(import.meta.url);

type SpanProcessor = NonNullable<Sdk.NodeSDKConfiguration["spanProcessors"]>[number];

/** Requests that would be most of the traces and tell nothing: probes, metric scrapes. */
const UNTRACED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

/**
 * Tracing is on when an operator says where spans go, with the standard OpenTelemetry
 * variables: an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
 * or an exporter named in OTEL_TRACES_EXPORTER (`otlp` to the default localhost:4318). The SDK's
 * own switches turn it off: OTEL_SDK_DISABLED=true, OTEL_TRACES_EXPORTER=none.
 */
export function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  const text = (name: string) => env[name]?.trim() ?? "";
  if (text("OTEL_SDK_DISABLED").toLowerCase() === "true") return false;
  const exporters = text("OTEL_TRACES_EXPORTER")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  // As the SDK reads it: `none` first is none, `none` beside others is ignored.
  if (exporters[0] === "none") return false;
  return (
    exporters.length > 0 ||
    text("OTEL_EXPORTER_OTLP_ENDPOINT") !== "" ||
    text("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") !== ""
  );
}

/**
 * Starts the OpenTelemetry SDK when the environment asks for traces (`tracingConfigured`), with
 * the http, express and pg instrumentations; `serviceName` unless OTEL_SERVICE_NAME (or
 * OTEL_RESOURCE_ATTRIBUTES) names the service. Everything else is the SDK's reading of the
 * environment: exporter, protocol, sampler, batching.
 *
 * It must run before express and pg are evaluated, which is why the entries import the module
 * that calls it first (register-server.ts, register-worker.ts), and why it is synchronous: a
 * module's top-level `await` does not hold back its siblings. The instrumentations patch
 * CommonJS packages through `require` hooks (require-in-the-middle). An ES module's `import` of
 * such a package evaluates its entry without `require`, though its own `require`s of its files
 * go through the hooks: pg is patched at lib/client.js and pg-pool, but express is patched at its
 * entry, so it is loaded here, through the hooks, and the app's `import` finds that patched module
 * in the cache. (OTel's documented alternative, import-in-the-middle's loader, must be registered
 * before the entry's imports are resolved: a `--import` flag every operator would have to add.)
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): void {
  if (!tracingConfigured(env)) return;
  const api = require("@opentelemetry/api") as typeof Api;
  const { NodeSDK, resources } = require("@opentelemetry/sdk-node") as typeof Sdk;
  // The SDK's exporters as the environment configures them (OTEL_TRACES_EXPORTER, the OTLP
  // protocol and endpoint, OTEL_BSP_*), which it builds itself only when given no processor.
  const { getSpanProcessorsFromEnv } =
    require("@opentelemetry/sdk-node/build/src/utils.js") as typeof SdkFromEnvironment;
  const { HttpInstrumentation } =
    require("@opentelemetry/instrumentation-http") as typeof HttpModule;
  const { ExpressInstrumentation, ExpressLayerType } =
    require("@opentelemetry/instrumentation-express") as typeof ExpressModule;
  const { PgInstrumentation } = require("@opentelemetry/instrumentation-pg") as typeof PgModule;

  const exporting = getSpanProcessorsFromEnv(undefined);
  // An exporter the SDK does not know: it said so (OTEL_LOG_LEVEL), and nothing would be sent.
  if (exporting.length === 0) return;
  // First, so that the exporters are handed spans already redacted.
  const redacting: SpanProcessor = {
    onStart: () => {},
    onEnding: redactSpan,
    onEnd: () => {},
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const sdk = new NodeSDK({
    // Under what the environment detects: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win.
    resource: resources
      .defaultResource()
      .merge(resources.resourceFromAttributes({ "service.name": serviceName })),
    spanProcessors: [redacting, ...exporting],
    // Traces only: the SDK would otherwise export metrics and logs to the same endpoint.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) =>
          UNTRACED_PATHS.has((request.url ?? "/").split("?")[0] ?? "/"),
        // The service's requests to the stores' hosts go through undici, which this does not
        // see; the only node:http client left would be the exporter. No `headersToSpanAttributes`:
        // headers carry the API keys (Basic) and the admins' tokens (Bearer).
        disableOutgoingRequestInstrumentation: true,
      }),
      // The route's handler: its middlewares, anonymous but for a few, would double the spans
      // of a storefront read for little they would say.
      new ExpressInstrumentation({
        ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER],
      }),
      // Queries outside a request or a job (the store-change listener, the job queue's polling)
      // would each be a trace of its own. Their text only, never their parameters' values.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
    ],
  });
  sdk.start();
  require("express");

  const tracer = api.trace.getTracer("@loyalty/server");
  const traceJob =
    (name: string, task: Task): Task =>
    (payload: unknown, helpers: JobHelpers) =>
      tracer.startActiveSpan(
        `job ${name}`,
        {
          kind: api.SpanKind.CONSUMER,
          attributes: { "job.id": helpers.job.id, "job.attempt": helpers.job.attempts },
        },
        async (span) => {
          try {
            return await task(payload, helpers);
          } catch (error) {
            const failure = error instanceof Error ? error : new Error(String(error));
            span.recordException(failure);
            span.setStatus({ code: api.SpanStatusCode.ERROR, message: failure.message });
            throw error;
          } finally {
            span.end();
          }
        },
      );
  setActiveTracing({
    logFields: (): Record<string, string> => {
      const span = api.trace.getActiveSpan();
      if (!span) return {};
      const { traceId, spanId, traceFlags } = span.spanContext();
      return {
        trace_id: traceId,
        span_id: spanId,
        trace_flags: traceFlags.toString(16).padStart(2, "0"),
      };
    },
    traceJobs: (tasks: TaskList) =>
      Object.fromEntries(
        Object.entries(tasks).map(([name, task]: [string, Task | undefined]) => [
          name,
          task && traceJob(name, task),
        ]),
      ),
    shutdown: () => sdk.shutdown().catch(() => {}),
  });
}
