import { STATUS_CODES } from "node:http";
import {
  ADMIN_OPERATIONS,
  API_REVISIONS,
  COMMON_ERROR_REASONS,
  ERROR_REASONS,
  LATEST_REVISION,
  MAX_BATCH_PRODUCTS,
  OPERATIONS,
  OPERATION_EXAMPLES,
  PARAMETER_EXAMPLES,
  PROBLEM_CONTENT_TYPE,
  REVISIONS,
  REVISION_HEADER,
  calculateManyPointsQuerySchema,
  legacyErrorSchema,
  numberArrayQuerySchema,
  numberQuerySchema,
  problemSchema,
  revisionLifecycle,
  usesProblemDetails,
  validationIssueSchema,
  type ApiRevision,
  type ErrorReason,
  type OperationDefinition,
  type ValidationIssue,
} from "@loyalty/shared-types";
import { z } from "zod";
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  honoursIdempotencyKey,
} from "../http/idempotency.middleware.js";
import { rateLimitedDetail } from "../http/rate-limit.middleware.js";
import { describeIssues, toValidationIssues } from "../http/validate.js";

/*
 * The OpenAPI 3.1 document of one revision, generated from the operation registries and their
 * zod schemas: nothing of the contract is written here twice. What this file adds is prose
 * (descriptions, example error details) and the mapping of the registries' vocabulary (auth
 * mechanisms, reasons, per-revision bodies) onto OpenAPI's.
 */

export type JsonSchema = Record<string, unknown>;

export interface OpenApiParameter {
  name: string;
  in: "query" | "path" | "header";
  required: boolean;
  description?: string;
  schema: JsonSchema;
  example?: unknown;
}

export interface OpenApiMediaType {
  schema: JsonSchema;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, { $ref: string }>;
  content?: Record<string, OpenApiMediaType>;
}

export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  security: Record<string, string[]>[];
  parameters: (OpenApiParameter | { $ref: string })[];
  requestBody?: {
    description?: string;
    required: boolean;
    content: Record<string, OpenApiMediaType>;
  };
  responses: Record<string, OpenApiResponse>;
}

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: {
    title: string;
    version: string;
    summary: string;
    description: string;
    license: { name: string; identifier: string };
  };
  servers: { url: string; description?: string }[];
  tags: { name: string; description?: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    schemas: Record<string, JsonSchema>;
    securitySchemes: Record<string, JsonSchema>;
    parameters: Record<string, OpenApiParameter>;
    headers: Record<string, JsonSchema>;
  };
}

export interface OpenApiDocumentOptions {
  revision?: ApiRevision;
  /** The prefix of the problem `type` URIs (PROBLEM_BASE_URI). */
  problemBaseUri: string;
  serverUrl?: string;
}

type Examples = { request?: unknown; response?: unknown; refusal?: unknown };
type PerRevision<T> = { "2026-01-01": T; "2026-06-18": T };

const ALL_OPERATIONS: [string, OperationDefinition][] = [
  ...Object.entries(OPERATIONS),
  ...Object.entries(ADMIN_OPERATIONS),
];

const OLDEST_REVISION = API_REVISIONS[0];

/**
 * A per-revision body's entry for `revision`: the newest entry not after it. Returns the entry's
 * key too, to pick the example written for the same entry.
 */
function forRevision(
  value: z.ZodType | PerRevision<z.ZodType>,
  revision: ApiRevision,
): { schema: z.ZodType; key?: keyof PerRevision<z.ZodType> } {
  if (value instanceof z.ZodType) return { schema: value };
  const keys = (Object.keys(value) as (keyof typeof value)[]).sort();
  const key = keys.filter((entry) => entry <= revision).pop() ?? keys[0]!;
  return { schema: value[key], key };
}

function exampleFor(example: unknown, key: string | undefined): unknown {
  return key === undefined ? example : (example as Record<string, unknown> | undefined)?.[key];
}

/* ---------- zod to JSON Schema ---------- */

const SAFE_INTEGER_BOUNDS = [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];

type OverrideContext = { zodSchema: z.core.$ZodTypes; jsonSchema: JsonSchema };

function replace(target: JsonSchema, source: JsonSchema): void {
  for (const key of Object.keys(target)) delete target[key];
  Object.assign(target, source);
}

function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

/** The message a renamed field's `z.never` refuses any value with: it says what to send instead. */
function neverMessage(schema: z.core.$ZodTypes): string | undefined {
  return z.safeParse(schema, null).error?.issues[0]?.message;
}

/**
 * Query and path values arrive as text that the schemas turn into numbers (`price=12.5`,
 * `/customers/1001`): the document shows the number a client sends, not the regular
 * expression that reads it.
 */
function numericText(context: OverrideContext): JsonSchema | undefined {
  const { zodSchema } = context;
  if (zodSchema === numberQuerySchema) return { type: "number" };
  if (zodSchema === numberArrayQuerySchema) {
    return { type: "array", items: { type: "integer", minimum: 0 } };
  }
  if (zodSchema === calculateManyPointsQuerySchema.shape.items) {
    return {
      type: "array",
      items: { type: "string", pattern: "^\\d{0,16}:\\d+(\\.\\d+)?(:\\d{1,16}(\\|\\d{1,16})*)?$" },
      minItems: 1,
      maxItems: MAX_BATCH_PRODUCTS,
    };
  }
  const def = zodSchema._zod.def;
  if (def.type !== "pipe") return undefined;
  const input = z.toJSONSchema(def.in, { io: "input", unrepresentable: "any" });
  const output = z.toJSONSchema(def.out, { io: "output", unrepresentable: "any" });
  const numeric = output.type === "number" || output.type === "integer";
  return input.type === "string" && numeric ? withoutDialect(output) : undefined;
}

function readable(context: OverrideContext, io: "input" | "output"): void {
  const { zodSchema, jsonSchema } = context;
  // The formats say what zod's long regular expressions check; the expressions only blur them.
  if (jsonSchema.format !== undefined) delete jsonSchema.pattern;
  // `.int()` alone bounds integers to the safe range: that is JSON's, not the API's.
  if (
    jsonSchema.minimum === SAFE_INTEGER_BOUNDS[0] &&
    jsonSchema.maximum === SAFE_INTEGER_BOUNDS[1]
  ) {
    delete jsonSchema.minimum;
    delete jsonSchema.maximum;
  }
  if (zodSchema._zod.def.type === "never") {
    jsonSchema.description = neverMessage(zodSchema) ?? "Not accepted.";
  }
  // Clients must ignore response fields they do not know (adding one is a compatible change),
  // so a response schema never forbids them.
  if (io === "output" && "additionalProperties" in jsonSchema) {
    const extra = jsonSchema.additionalProperties;
    if (extra === false || (typeof extra === "object" && Object.keys(extra ?? {}).length === 0)) {
      delete jsonSchema.additionalProperties;
    }
  }
}

function toJsonSchema(
  schema: z.ZodType,
  io: "input" | "output",
  options: { parameters?: boolean } = {},
): JsonSchema {
  const converted = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    override: (context) => {
      const ctx = context as OverrideContext;
      const numeric = options.parameters ? numericText(ctx) : undefined;
      if (numeric) replace(ctx.jsonSchema, numeric);
      readable(ctx, io);
    },
  }) as JsonSchema;
  // A schema registered with an id would come with local $defs, which "#/$defs/..." refs
  // cannot reach once the schema sits inside the document.
  if (converted.$defs) throw new Error("a schema with $defs must become a component");
  return withoutDialect(converted);
}

/* ---------- Components ---------- */

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

function errorComponents(legacy: boolean): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  registry.add(validationIssueSchema, { id: "ValidationIssue" });
  registry.add(problemSchema, { id: "Problem" });
  if (legacy) registry.add(legacyErrorSchema, { id: "LegacyError" });
  const { schemas } = z.toJSONSchema(registry, {
    io: "output",
    uri: (id) => `#/components/schemas/${id}`,
    override: (context) => readable(context as OverrideContext, "output"),
  });
  const components = Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, withoutDialect(schema as JsonSchema)]),
  );
  const problem = components.Problem!;
  problem.description =
    "RFC 9457 problem details, served as application/problem+json. Branch on `type`; ignore members you do not know.";
  const properties = problem.properties as Record<string, JsonSchema>;
  Object.assign(properties.type!, {
    format: "uri",
    description: "`{problem_base}/<reason>`: stable, the field to branch on.",
  });
  properties.detail!.description = "What went wrong with this request, for a person to read.";
  properties.instance!.description = "The path of the request that failed.";
  properties.requestId!.description =
    "The request id, also in the X-Request-Id header: quote it to support.";
  properties.errors!.description = "On validation-failed: every issue found, not only the first.";
  const issue = components.ValidationIssue!;
  issue.description = "One problem found in the request.";
  (issue.properties as Record<string, JsonSchema>).pointer!.description =
    'JSON Pointer (RFC 6901) to the value within its location; "" for the whole of it.';
  if (components.LegacyError) {
    components.LegacyError.description =
      "The historical error body of revisions before 2026-08-26, served as application/json.";
  }
  return components;
}

function securitySchemes(): Record<string, JsonSchema> {
  return {
    basicAuth: {
      type: "http",
      scheme: "basic",
      description:
        "The order operations: the store's API key as the user name and an empty password, `Authorization: Basic base64(<API_KEY>:)`. API keys are created in the back-office; a store may have several active at once.",
    },
    customerHash: {
      type: "apiKey",
      in: "query",
      name: "hash",
      description:
        "The customer operations: `hash` is the hex HMAC-SHA512 of the `externalId` text, keyed with `<store_reference>:<API_KEY>`. The operations also take `domain` and `externalId`. Compute the hash on the store's server: the store reference and the API key must never reach a browser.",
    },
    bearerAuth: {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
      description:
        "The back-office: an access token from `POST /admin/token`, for the whole service or limited to one store.",
    },
  };
}

function responseHeaders(revision: ApiRevision): Record<string, JsonSchema> {
  const lifecycle = revisionLifecycle(revision, new Date(0));
  return {
    revision: {
      description:
        "The revision that served the request; absent when the request's revision header was refused.",
      schema: { type: "string", enum: [revision] },
    },
    "X-Request-Id": {
      description:
        "The request's id: the caller's X-Request-Id when it is sane, else a new one. Quote it to support.",
      schema: { type: "string" },
    },
    Deprecation: {
      description: `Only while the served revision is deprecated (RFC 8594): the HTTP-date it became deprecated. This revision is deprecated from ${lifecycle.deprecatedOn.toUTCString()}.`,
      schema: { type: "string" },
      example: lifecycle.deprecatedOn.toUTCString(),
    },
    Sunset: {
      description: `Only while the served revision is deprecated: the HTTP-date it is retired. This revision retires on ${lifecycle.sunsetOn.toUTCString()}.`,
      schema: { type: "string" },
      example: lifecycle.sunsetOn.toUTCString(),
    },
    [IDEMPOTENT_REPLAYED_HEADER]: {
      description: `\`true\` when the response is the one kept for the request's ${IDEMPOTENCY_KEY_HEADER}, answered again; absent otherwise.`,
      schema: { type: "string", enum: ["true"] },
    },
    "RateLimit-Policy": {
      description:
        "The rate limit of the operation (draft-ietf-httpapi-ratelimit-headers-07): its quota per window of `w` seconds, counted per address for public operations, per customer and address for the customer-hash ones, per API key, per access token. Absent when the operator turned the limit off.",
      schema: { type: "string" },
      example: "600;w=60",
    },
    RateLimit: {
      description:
        "The limit, the requests `remaining`, and the seconds until the window `reset`s.",
      schema: { type: "string" },
      example: "limit=600, remaining=599, reset=60",
    },
    "Retry-After": {
      description: "On 429: the seconds to wait before the limit allows a request again.",
      schema: { type: "integer", minimum: 0 },
      example: 42,
    },
  };
}

const RESPONSE_HEADERS = Object.fromEntries(
  ["revision", "X-Request-Id", "Deprecation", "Sunset", "RateLimit-Policy", "RateLimit"].map(
    (name) => [name, headerRef(name)],
  ),
);

const responseHeadersOf = (operation: OperationDefinition) =>
  honoursIdempotencyKey(operation)
    ? { ...RESPONSE_HEADERS, [IDEMPOTENT_REPLAYED_HEADER]: headerRef(IDEMPOTENT_REPLAYED_HEADER) }
    : RESPONSE_HEADERS;

/* ---------- Prose ---------- */

const TAGS: Record<string, string> = {
  Orders:
    "Registering orders and declaring refunds (Basic authentication). Points are computed asynchronously.",
  Activities:
    "Ways to earn beyond orders (Basic authentication): sign-ups, birthdays, reviews, newsletter subscriptions, social follows and the store's own kinds, credited once per activityId.",
  Points: "What a product would earn under the store's attribution rules.",
  Customers: "A customer's balance, transactions and club.",
  Rewards: "The reward catalogue and the exchange of points for voucher codes.",
  Referrals: "Inviting a friend, and the friend's discount code.",
  Widgets: "The storefront widgets' configurations, as set in the back-office.",
  "Admin: tokens":
    "Back-office sign-in: an admin's email and password for a short-lived Bearer token.",
  "Admin: stores": "The stores of the service.",
  "Admin: API keys":
    "A store's API keys: Basic authentication of the order operations and the key of the customer hash.",
  "Admin: attribution rules": "How orders earn points: product, category and default rules.",
  "Admin: clubs":
    "Tiers reached by the points earned over the last 12 months, each with an earn multiplier.",
  "Admin: rewards": "Rewards and their versioned vouchers; deactivation withdraws one.",
  "Admin: widget configurations": "What the storefront widgets show.",
  "Admin: platform connection": "The e-commerce platform that issues the store's discount codes.",
  "Admin: webhooks": "Endpoints to which the store's events are delivered, signed.",
  "Admin: referral programme": "The referrer's bonus and the referee's voucher.",
  "Admin: programme settings":
    "How the points programme runs beyond the defaults: the pending period, expiry, the ways to earn beyond orders. Every setting defaults to the behaviour the API reference describes.",
  "Admin: customers":
    "Customer search, a customer's profile and ledger, manual point adjustments and GDPR requests.",
  "Admin: overview":
    "The programme's figures: members, points by cause, liability, activity per day, top rewards.",
};

const PARAMETER_DESCRIPTIONS: Record<string, string> = {
  domain: "The store's domain as declared in the back-office: a full origin with scheme.",
  externalId: "The customer's identifier in the store's platform.",
  product: "The product's identifier in the store's platform.",
  categories:
    "The product's categories, repeated (`categories=1&categories=2`); `categories=1,2` and `categories[]=1` are read too.",
  price: "The product's unit price, in the store's currency.",
  items:
    "The products, each `<product>:<price>` or `<product>:<price>:<category>|<category>…` (calculate's `product`, `price` and `categories`; the product may be empty: `:12.5`), repeated (`items=7:17.99&items=:5`) or comma-separated (`items=7:17.99,:5`).",
  limit:
    "Transactions per page, 1 to 100 (default 20). Values out of range are clamped, decimals rounded down; a value that is not a number gets the default.",
  cursor:
    "The `nextCursor` of the previous page; omit it for the first page. A cursor the service did not issue reads as the end of the list.",
  storeId: "The store's id.",
  keyId: "The API key's public id (`lk_<prefix>`).",
  ruleId: "The attribution rule's id.",
  clubId: "The club's id.",
  rewardId: "The reward's id.",
  endpointId: "The webhook endpoint's id.",
  deliveryId: "The webhook delivery's id.",
};

/** `externalId` in a query: the referrer of a referral, or a repetition of the path's. */
function queryExternalIdText(operation: OperationDefinition): string {
  return operation.pathParams
    ? "Repeated from the path by some integrations; it must then be equal to it."
    : "The customer's identifier in the store's platform: the text the hash is computed on.";
}

function authenticationText(operation: OperationDefinition): string {
  switch (operation.auth) {
    case "basic":
      return "Authentication: HTTP Basic, the store's API key as the user name and an empty password.";
    case "hmac":
      return "Authentication: the customer hash (`hash`, with `domain` and `externalId`).";
    case "bearer":
      return operation.scope === "service"
        ? "Authentication: a Bearer access token for the whole service."
        : "Authentication: a Bearer access token for the whole service or for this store.";
    case "public":
      return "No authentication.";
  }
}

const SECURITY: Record<OperationDefinition["auth"], Record<string, string[]>[]> = {
  basic: [{ basicAuth: [] }],
  hmac: [{ customerHash: [] }],
  bearer: [{ bearerAuth: [] }],
  public: [],
};

/** What the error examples say, written as the server words such errors. */
function exampleDetail(
  reason: ErrorReason,
  operation: OperationDefinition,
  revision: ApiRevision,
): string {
  switch (reason) {
    case "validation-failed":
      return describeIssues(validationIssues(operation, revision));
    case "invalid-revision-header":
      return 'The revision header must be a date in YYYY-MM-DD format; received "latest".';
    case "unknown-api-revision":
      return `API revision 2025-12-01 is not supported. Supported revisions: ${API_REVISIONS.join(", ")}.`;
    case "referral-customer-already-exists":
      return "sam.lee@example.org already belongs to a customer of the store.";
    case "referral-already-pending":
      return "sam.lee@example.org was already invited; the invitation is pending.";
    case "referral-already-completed":
      return "sam.lee@example.org was already referred.";
    case "unauthorized":
      return {
        basic: "The API key is missing or not valid.",
        hmac: "The hash does not match the customer and the store.",
        bearer: "The access token has expired: ask for a new one.",
        public: "The email or the password is wrong.",
      }[operation.auth];
    case "forbidden":
      return "The access token is for another store.";
    case "not-found":
      if (operation.auth === "bearer") {
        return `No store has the id ${String(PARAMETER_EXAMPLES.storeId)}.`;
      }
      if (operation.auth === "hmac") return "The store has no customer with this externalId.";
      return operation.query ? "No store has this domain." : "No referral has this hash.";
    case "platform-credentials-rejected":
      return "The store's platform refused the store's credentials.";
    case "platform-resource-not-found":
      return "The store's platform does not expose the resource needed.";
    case "platform-request-rejected":
      return "The store's platform refused to create the discount code.";
    case "rate-limited":
      return rateLimitedDetail(
        { basic: "API key", hmac: "customer", bearer: "access token", public: "address" }[
          operation.auth
        ],
        600,
        60,
      );
    case "internal-server-error":
      return "The request could not be completed.";
    case "platform-unavailable":
      return "The store's platform did not answer; retry later.";
  }
}

/* ---------- Operations ---------- */

interface Context {
  revision: ApiRevision;
  problemBaseUri: string;
  /** Whether an error is in the legacy format: LegacyError is a component only then. */
  legacyUsed: boolean;
}

function objectParts(schema: JsonSchema): {
  properties: Record<string, JsonSchema>;
  required: string[];
} {
  return {
    properties: (schema.properties ?? {}) as Record<string, JsonSchema>,
    required: (schema.required ?? []) as string[],
  };
}

function revisionParameter(revision: ApiRevision): OpenApiParameter {
  return {
    name: REVISION_HEADER,
    in: "header",
    // Declared as the spec declares it: required, this document's revision as the default.
    required: true,
    description: `The API revision the request is written for (YYYY-MM-DD). A request without it is served the oldest supported revision, ${OLDEST_REVISION}, the historical contract. A value that is not a date answers invalid-revision-header; a revision that does not exist, or is retired, unknown-api-revision.`,
    schema: { type: "string", enum: [revision], default: revision },
    example: revision,
  };
}

const IDEMPOTENCY_KEY_PARAMETER: OpenApiParameter = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: "header",
  required: false,
  description:
    "A key of the caller's (a UUID), sent again unchanged with every retry of the request. The same key and request within 24 hours answer the first response again, with `Idempotent-Replayed: true`, without running the operation twice; the same key with another request is validation-failed. A first request answered 5xx is not kept: its retry runs. While the first is still running, a retry waits for its answer a few seconds, else is answered 500 with `Retry-After`. Keys are per sender (store, customer, admin).",
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]+$" },
  example: "5f1c2a9e-7b3d-4e8a-9c41-2d6b0f3e8a17",
};

function parameters(operation: OperationDefinition) {
  const result: OpenApiOperation["parameters"] = [{ $ref: "#/components/parameters/revision" }];
  if (honoursIdempotencyKey(operation)) {
    result.push({ $ref: "#/components/parameters/idempotencyKey" });
  }
  const parts = [
    ["path", operation.pathParams],
    ["query", operation.query],
  ] as const;
  for (const [location, schema] of parts) {
    if (!schema) continue;
    const { properties, required } = objectParts(
      toJsonSchema(schema, "input", { parameters: true }),
    );
    for (const [parameter, parameterSchema] of Object.entries(properties)) {
      // The customer hash is the customerHash security scheme's value: declaring it again as a
      // parameter would have tools send it twice.
      if (operation.auth === "hmac" && location === "query" && parameter === "hash") continue;
      const { description: schemaDescription, ...schemaRest } = parameterSchema;
      const description =
        (schemaDescription as string | undefined) ??
        (location === "query" && parameter === "externalId"
          ? queryExternalIdText(operation)
          : PARAMETER_DESCRIPTIONS[parameter]);
      result.push({
        name: parameter,
        in: location,
        required: location === "path" || required.includes(parameter),
        ...(description && { description }),
        schema: schemaRest,
        ...(parameter in PARAMETER_EXAMPLES && { example: PARAMETER_EXAMPLES[parameter] }),
      });
    }
  }
  return result;
}

function instancePath(path: string): string {
  return path.replace(/\{(\w+)\}/g, (_, parameter: string) =>
    String(PARAMETER_EXAMPLES[parameter] ?? parameter),
  );
}

/**
 * The issues the server would list for a plausible mistake: the operation's own schema refusing
 * an empty body (or query), else a field of the wrong type.
 */
function validationIssues(
  operation: OperationDefinition,
  revision: ApiRevision,
): ValidationIssue[] {
  const [location, schema] = operation.body
    ? (["body", forRevision(operation.body, revision).schema] as const)
    : (["query", operation.query] as const);
  if (!schema) return [{ location: "path", pointer: "", message: "Invalid input", code: "custom" }];
  const fields = Object.keys(objectParts(toJsonSchema(schema, "input")).properties);
  const attempts = [
    {},
    { unknownField: true },
    ...fields.map((field) => ({ [field]: { wrong: 1 } })),
  ];
  for (const attempt of attempts) {
    const result = schema.safeParse(attempt);
    if (!result.success) return toValidationIssues(result.error, location).slice(0, 1);
  }
  return [{ location, pointer: "", message: "Invalid input", code: "invalid_type" }];
}

function errorResponses(
  name: string,
  operation: OperationDefinition,
  context: Context,
): Record<string, OpenApiResponse> {
  const reasons = [...operation.errors, ...COMMON_ERROR_REASONS];
  const byStatus = new Map<number, ErrorReason[]>();
  for (const reason of reasons) {
    const { status } = ERROR_REASONS[reason];
    byStatus.set(status, [...(byStatus.get(status) ?? []), reason]);
  }
  const responses: Record<string, OpenApiResponse> = {};
  for (const [status, statusReasons] of [...byStatus].sort(([a], [b]) => a - b)) {
    // A refused revision header has no revision to take a format from: it is always a problem.
    const inProblemFormat = (reason: ErrorReason) =>
      usesProblemDetails(context.revision) ||
      reason === "invalid-revision-header" ||
      reason === "unknown-api-revision";
    const problems = statusReasons.filter(inProblemFormat);
    const legacy = statusReasons.filter((reason) => !inProblemFormat(reason));
    const content: Record<string, OpenApiMediaType> = {};
    if (problems.length) {
      content[PROBLEM_CONTENT_TYPE] = {
        schema: {
          allOf: [
            schemaRef("Problem"),
            {
              type: "object",
              properties: {
                type: {
                  type: "string",
                  enum: problems.map((reason) => `${context.problemBaseUri}/${reason}`),
                },
                status: { type: "integer", const: status },
              },
            },
          ],
        },
        examples: Object.fromEntries(
          problems.map((reason) => [
            reason,
            {
              summary: ERROR_REASONS[reason].title,
              value: {
                type: `${context.problemBaseUri}/${reason}`,
                title: ERROR_REASONS[reason].title,
                status,
                detail: exampleDetail(reason, operation, context.revision),
                instance: instancePath(operation.path),
                requestId: "4f0c1b8e-2a4d-4c31-9a57-0f6d5b2e8c11",
                ...(reason === "validation-failed" && {
                  errors: validationIssues(operation, context.revision),
                }),
              },
            },
          ]),
        ),
      };
    }
    const legacyExamples = Object.fromEntries(
      legacy.map((reason) => [
        reason,
        {
          summary: ERROR_REASONS[reason].title,
          value: {
            statusCode: status,
            error: STATUS_CODES[status] ?? "Error",
            message: exampleDetail(reason, operation, context.revision),
          },
        },
      ]),
    );
    if (legacy.length) context.legacyUsed = true;
    const refusal = status === 404 && operation.refusal;
    if (refusal) {
      const refusalSchema = toJsonSchema(refusal, "output");
      const refusalExample = {
        summary: "The exchange is refused: `code` is null, `reason` says why",
        value: (OPERATION_EXAMPLES as Record<string, Examples>)[name]?.refusal,
      };
      content["application/json"] = legacy.length
        ? {
            schema: { oneOf: [schemaRef("LegacyError"), refusalSchema] },
            examples: { ...legacyExamples, refused: refusalExample },
          }
        : { schema: refusalSchema, examples: { refused: refusalExample } };
    } else if (legacy.length) {
      content["application/json"] = { schema: schemaRef("LegacyError"), examples: legacyExamples };
    }
    const lines = statusReasons.map((reason) => `- \`${reason}\`: ${ERROR_REASONS[reason].title}`);
    if (refusal) {
      lines.push(
        "- the exchange is refused (insufficient balance, inactive voucher, usage limit reached): `application/json` with `code: null`, not a problem",
      );
    }
    responses[String(status)] = {
      description: `${STATUS_CODES[status] ?? "Error"}:\n${lines.join("\n")}`,
      headers:
        status === 429
          ? { ...responseHeadersOf(operation), "Retry-After": headerRef("Retry-After") }
          : responseHeadersOf(operation),
      content,
    };
  }
  return responses;
}

function buildOperation(
  name: string,
  operation: OperationDefinition,
  context: Context,
): OpenApiOperation {
  const { revision } = context;
  const examples = (OPERATION_EXAMPLES as Record<string, Examples>)[name] ?? {};
  const description = [
    authenticationText(operation),
    operation.events.length ? `Events: ${operation.events.join(", ")}.` : "",
  ]
    .filter(Boolean)
    .join("\n\n");
  const result: OpenApiOperation = {
    operationId: name,
    summary: operation.summary,
    description,
    tags: operation.tag ? [operation.tag] : [],
    security: SECURITY[operation.auth],
    parameters: parameters(operation),
    responses: {},
  };
  if (operation.body) {
    const { schema, key } = forRevision(operation.body, revision);
    const bodySchema = toJsonSchema(schema, "input");
    result.requestBody = {
      ...(operation.maxBodyBytes === undefined
        ? {}
        : {
            description: `At most ${operation.maxBodyBytes} bytes: a larger body is refused (400 validation-failed) without being read.`,
          }),
      required: objectParts(bodySchema).required.length > 0,
      content: {
        "application/json": { schema: bodySchema, example: exampleFor(examples.request, key) },
      },
    };
  }
  const success: OpenApiResponse = {
    description: STATUS_CODES[operation.successStatus] ?? "Success",
    headers: responseHeadersOf(operation),
  };
  if (operation.response) {
    const { schema, key } = forRevision(operation.response, revision);
    success.content = {
      "application/json": {
        schema: toJsonSchema(schema, "output"),
        example: exampleFor(examples.response, key),
      },
    };
  }
  result.responses = {
    [String(operation.successStatus)]: success,
    ...errorResponses(name, operation, context),
  };
  return result;
}

function infoDescription(revision: ApiRevision): string {
  const revisions = REVISIONS.map(
    (entry) =>
      `- \`${entry.revision}\`${entry.revision === revision ? " (this document)" : ""}: ${entry.summary}`,
  ).join("\n");
  return `The loyalty points service for online stores: orders earn points, customers exchange them for voucher codes, refer friends, and the storefront widgets show it all. The back-office API under \`/admin\` manages stores, keys, rules, clubs, rewards and widgets.

## Authentication
- **Basic** (order operations): the store's API key as the user name, an empty password.
- **Customer hash** (customer operations): \`hash\` = hex HMAC-SHA512 of the \`externalId\` text keyed \`<store_reference>:<API_KEY>\`, with \`domain\` and \`externalId\`. Compute it on the store's server.
- **Bearer** (back-office): a JWT access token from \`POST /admin/token\`.
- The storefront reads (widgets, reward list, points calculation) and the referee code need no credentials.

## Revisions
Every request names the contract it is written for in the \`revision\` header; without it, the oldest supported revision (\`${OLDEST_REVISION}\`) is served. A revision is stable for a year, then deprecated for a year (responses carry \`Deprecation\` and \`Sunset\`), then retired. This document describes \`${revision}\`; the others are at \`/openapi.json?revision=<revision>\`.

${revisions}

## Errors
${
  usesProblemDetails(revision)
    ? "Errors are RFC 9457 problem details (`application/problem+json`) whose `type` ends with the reason."
    : "Errors are `{statusCode, error, message}` (`application/json`), except the refusal of the revision header itself, which is a problem object (`application/problem+json`) since it has no revision to take a format from."
} Every response carries \`X-Request-Id\`.`;
}

/** The OpenAPI 3.1 document of `revision`: every public and back-office operation. */
export function buildOpenApiDocument(options: OpenApiDocumentOptions): OpenApiDocument {
  const revision = options.revision ?? LATEST_REVISION;
  const context: Context = {
    revision,
    problemBaseUri: options.problemBaseUri.replace(/\/+$/, ""),
    legacyUsed: false,
  };
  const paths: OpenApiDocument["paths"] = {};
  const tags: string[] = [];
  for (const [name, operation] of ALL_OPERATIONS) {
    const methods = (paths[operation.path] ??= {});
    methods[operation.method.toLowerCase()] = buildOperation(name, operation, context);
    if (operation.tag && !tags.includes(operation.tag)) tags.push(operation.tag);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Loyalty Points API",
      version: revision,
      summary:
        "Loyalty points for online stores: orders, points, rewards, referrals, widgets and the back-office.",
      description: infoDescription(revision),
      license: { name: "MIT", identifier: "MIT" },
    },
    // A relative URL is the origin the document was fetched from.
    servers: [{ url: options.serverUrl ?? "/" }],
    tags: tags.map((tag) => ({ name: tag, ...(TAGS[tag] && { description: TAGS[tag] }) })),
    paths,
    components: {
      schemas: errorComponents(context.legacyUsed),
      securitySchemes: securitySchemes(),
      parameters: {
        revision: revisionParameter(revision),
        idempotencyKey: IDEMPOTENCY_KEY_PARAMETER,
      },
      headers: responseHeaders(revision),
    },
  };
}
