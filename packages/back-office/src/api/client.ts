import "./zod-config.js";
import {
  ADMIN_OPERATIONS,
  ERROR_REASONS,
  LATEST_REVISION,
  REVISION_HEADER,
  problemSchema,
  reasonFromProblemType,
  type ErrorReason,
  type OperationDefinition,
} from "@loyalty/shared-types";
import type { z } from "zod";
import {
  ApiError,
  RequestValidationError,
  fieldFromPointer,
  issuesFromZod,
  type FieldIssue,
} from "./errors.js";
import { session, type SessionStore } from "./session.js";

type Operations = typeof ADMIN_OPERATIONS;

/** The name of a back-office operation, as in ADMIN_OPERATIONS and the OpenAPI document. */
export type OperationName = keyof Operations;

/** The path parameters of an operation (`{ storeId }`), numbers or text. */
export type PathParams<N extends OperationName> = Operations[N] extends {
  pathParams: infer S extends z.ZodType;
}
  ? { [K in keyof z.input<S>]: string | number }
  : undefined;

/** The request body, as the operation's schema takes it (its input). */
export type RequestBody<N extends OperationName> = Operations[N] extends {
  body: infer S extends z.ZodType;
}
  ? z.input<S>
  : undefined;

/** The query parameters, as they are written in the URL (the query schema's input). */
export type RequestQuery<N extends OperationName> = Operations[N] extends {
  query: infer S extends z.ZodType;
}
  ? z.input<S>
  : undefined;

/** What the operation answers, parsed by its schema; undefined for 204. */
export type ResponseBody<N extends OperationName> = Operations[N] extends {
  response: infer S extends z.ZodType;
}
  ? z.output<S>
  : undefined;

// A part the operation does not take cannot be passed; one whose members are all optional may
// be left out.
type Part<K extends string, T> = [T] extends [undefined]
  ? { [P in K]?: never }
  : object extends T
    ? { [P in K]?: T }
    : { [P in K]: T };

export type CallOptions<N extends OperationName> = Part<"params", PathParams<N>> &
  Part<"body", RequestBody<N>> &
  Part<"query", RequestQuery<N>> & {
    /** Aborts the request (a Task passes its own). */
    signal?: AbortSignal | undefined;
  };

type CallArguments<N extends OperationName> =
  object extends CallOptions<N> ? [options?: CallOptions<N>] : [options: CallOptions<N>];

export interface ApiClientOptions {
  /** Where `/admin/...` is served: the page's own origin unless said otherwise. */
  baseUrl?: string;
  session?: SessionStore;
  fetch?: typeof fetch;
}

/**
 * The one request layer of the back-office: every call names an operation of
 * ADMIN_OPERATIONS and is typed from its schemas.
 *
 * ```ts
 * const rules = await api.call("listRules", { params: { storeId } });
 * ```
 *
 * Before sending, the body and query are checked with the operation's schemas (a
 * RequestValidationError, and no request, when they break them). Each request carries the
 * session's token and the latest revision, so that errors come back as problem objects; an
 * error answer becomes an ApiError, and a 401 ends the session (the app then asks to sign in).
 */
export class ApiClient {
  readonly #baseUrl: string;
  readonly #session: SessionStore;
  readonly #fetch: typeof fetch;

  constructor(options: ApiClientOptions = {}) {
    this.#baseUrl = options.baseUrl ?? "";
    this.#session = options.session ?? session;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  async call<N extends OperationName>(
    name: N,
    ...[options]: CallArguments<N>
  ): Promise<ResponseBody<N>> {
    const operation: OperationDefinition = ADMIN_OPERATIONS[name];
    const { params, body, query, signal } = (options ?? {}) as {
      params?: Record<string, string | number>;
      body?: unknown;
      query?: Record<string, unknown>;
      signal?: AbortSignal;
    };
    const bearer = operation.auth === "bearer";

    const issues = [
      ...check(operation.body as z.ZodType | undefined, body, "body"),
      ...(query === undefined ? [] : check(operation.query, query, "query")),
    ];
    if (issues.length > 0) throw new RequestValidationError(issues);

    const headers = new Headers({
      accept: "application/json, application/problem+json",
      [REVISION_HEADER]: LATEST_REVISION,
    });
    const token = bearer ? this.#session.accessToken() : undefined;
    if (bearer) {
      if (!token) throw unauthorized("The session has ended.");
      headers.set("authorization", `Bearer ${token}`);
    }
    if (operation.body) headers.set("content-type", "application/json");

    let response: Response;
    try {
      response = await this.#fetch(this.#baseUrl + operationUrl(operation.path, params, query), {
        method: operation.method,
        headers,
        body: operation.body ? JSON.stringify(body ?? {}) : undefined,
        signal,
        credentials: "same-origin",
        cache: "no-store",
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApiError({
        status: undefined,
        reason: "network-error",
        title: "The server could not be reached",
        cause: error,
      });
    }

    if (!response.ok) {
      const error = await errorFromResponse(response);
      if (response.status === 401 && token) this.#session.refused(token);
      throw error;
    }
    if (!operation.response || response.status === 204) return undefined as ResponseBody<N>;
    const parsed = (operation.response as z.ZodType).safeParse(await readJson(response));
    if (!parsed.success) {
      throw new ApiError({
        status: response.status,
        reason: "unexpected-response",
        title: "The server's answer does not match the API contract",
        issues: issuesFromZod(parsed.error, "body"),
        requestId: response.headers.get("x-request-id") ?? undefined,
      });
    }
    return parsed.data as ResponseBody<N>;
  }
}

/**
 * The URL of an operation: its path template with `params` (encoded), then `query` (arrays
 * as repeated keys, undefined and null left out).
 */
export function operationUrl(
  template: string,
  params: Readonly<Record<string, string | number>> | undefined,
  query: Readonly<Record<string, unknown>> | undefined,
): string {
  const path = template.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new TypeError(`${template} needs the path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (item === undefined || item === null) continue;
      search.append(key, typeof item === "string" ? item : JSON.stringify(item));
    }
  }
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

function check(
  schema: z.ZodType | undefined,
  value: unknown,
  location: FieldIssue["location"],
): FieldIssue[] {
  if (!schema) return [];
  const result = schema.safeParse(value);
  return result.success ? [] : issuesFromZod(result.error, location);
}

function unauthorized(detail: string): ApiError {
  return new ApiError({ status: 401, reason: "unauthorized", title: "Unauthorized", detail });
}

const REASON_BY_STATUS: Partial<Record<number, ErrorReason>> = {
  401: "unauthorized",
  403: "forbidden",
  404: "not-found",
  429: "rate-limited",
};

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The error answer as an ApiError: a problem object, else what the status says. */
async function errorFromResponse(response: Response): Promise<ApiError> {
  const requestId = response.headers.get("x-request-id") ?? undefined;
  const problem = problemSchema.safeParse(await readJson(response));
  if (problem.success) {
    const { type, title, detail, errors } = problem.data;
    return new ApiError({
      status: response.status,
      reason: reasonFromProblemType(type) ?? type,
      title,
      detail,
      issues: (errors ?? []).map((issue) => ({
        location: issue.location,
        field: fieldFromPointer(issue.pointer),
        message: issue.message,
        code: issue.code,
      })),
      requestId: problem.data.requestId ?? requestId,
    });
  }
  // Not the API's answer (a proxy's page, say): its status is all there is, and it names a
  // reason only where one status has one reason.
  const reason = REASON_BY_STATUS[response.status];
  return new ApiError({
    status: response.status,
    reason: reason ?? "unexpected-response",
    title: reason ? ERROR_REASONS[reason].title : response.statusText || `HTTP ${response.status}`,
    requestId,
  });
}

/** The app's client: same origin, the app's session. */
export const api = new ApiClient();
