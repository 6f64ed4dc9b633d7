import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  ADMIN_OPERATIONS,
  API_REVISIONS,
  COMMON_ERROR_REASONS,
  ERROR_REASONS,
  LATEST_REVISION,
  OPERATIONS,
  PROBLEM_CONTENT_TYPE,
  problemSchema,
  type ApiRevision,
  type OperationDefinition,
} from "@loyalty/shared-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { openApiPath } from "../src/http/operation-route.js";
import {
  buildOpenApiDocument,
  type JsonSchema,
  type OpenApiDocument,
  type OpenApiMediaType,
  type OpenApiOperation,
  type OpenApiParameter,
} from "../src/openapi/openapi.document.js";
import { startTestApp, type TestApp } from "./support/app.js";
import { revalidate } from "./support/revalidate.js";

const PROBLEMS = "https://loyalty.dev/problems";
const SERVER_DIRECTORY = fileURLToPath(new URL("..", import.meta.url));
const REDOCLY = path.join(SERVER_DIRECTORY, "node_modules", ".bin", "redocly");

const OPERATION_LIST = [...Object.entries(OPERATIONS), ...Object.entries(ADMIN_OPERATIONS)] as [
  string,
  OperationDefinition,
][];

let app: TestApp;
let workDirectory: string;

beforeAll(async () => {
  app = await startTestApp();
  // Every revision of the registry is supported on this day.
  app.setNow(new Date("2026-11-22T12:00:00Z"));
  workDirectory = await mkdtemp(path.join(tmpdir(), "loyalty-openapi-"));
});

afterAll(async () => {
  await rm(workDirectory, { recursive: true, force: true });
  await app.close();
});

async function served(revision?: ApiRevision): Promise<OpenApiDocument> {
  const query = revision ? `?revision=${revision}` : "";
  const response = await fetch(`${app.baseUrl}/openapi.json${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as OpenApiDocument;
}

interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer: string; source?: { ref: string } }[];
}

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: string[];
}

/**
 * Lints documents with @redocly/cli and the rules of redocly.yaml (recommended, all as errors),
 * in one run rather than one per document, each paying the CLI's start-up again. Its JSON format
 * prints one report per document, in the order the files are given.
 */
async function lint(
  documents: Record<string, OpenApiDocument>,
): Promise<Record<string, LintReport>> {
  const names = Object.keys(documents);
  const files = names.map((name) => path.join(workDirectory, `${name}.json`));
  await Promise.all(
    names.map((name, index) => writeFile(files[index]!, JSON.stringify(documents[name], null, 2))),
  );
  const result = await promisify(execFile)(REDOCLY, ["lint", ...files, "--format=json"], {
    cwd: SERVER_DIRECTORY,
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string }) => error);
  const stdout = result.stdout ?? "";
  expect(stdout, result.stderr).toContain("totals");
  const reports = jsonValues(stdout.slice(stdout.indexOf("{"))) as {
    totals: { errors: number; warnings: number };
    problems: LintProblem[];
  }[];
  expect(reports, result.stderr).toHaveLength(names.length);
  return Object.fromEntries(
    reports.map((report, index) => {
      const name = names[index]!;
      for (const problem of report.problems) {
        const source = problem.location[0]?.source?.ref;
        expect(source && path.basename(source), "a problem reported with another file").toBe(
          `${name}.json`,
        );
      }
      const problems = report.problems.map(
        (problem) =>
          `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer ?? "?"}: ${problem.message}`,
      );
      return [name, { totals: report.totals, problems }];
    }),
  );
}

/** The JSON values of a text that holds several one after the other, as `{...}{...}`. */
function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (inString) {
      if (char === "\\") index++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === "{" || char === "[") {
      if (depth++ === 0) start = index;
    } else if (char === "}" || char === "]") {
      if (--depth === 0) values.push(JSON.parse(text.slice(start, index + 1)));
    }
  }
  return values;
}

const operationOf = (document: OpenApiDocument, definition: OperationDefinition) =>
  document.paths[definition.path]?.[definition.method.toLowerCase()] as OpenApiOperation;

const parameter = (operation: OpenApiOperation, name: string, location: string) =>
  operation.parameters.find(
    (entry): entry is OpenApiParameter =>
      "name" in entry && entry.name === name && entry.in === location,
  );

const jsonBody = (media: OpenApiMediaType | undefined) => media?.schema as JsonSchema;

describe("GET /openapi.json", () => {
  it("serves the latest revision's OpenAPI 3.1 document, as generated from the registries", async () => {
    const response = await fetch(`${app.baseUrl}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const document = (await response.json()) as OpenApiDocument;
    expect(document.openapi).toBe("3.1.0");
    expect(document.info.version).toBe(LATEST_REVISION);
    expect(document).toEqual(
      JSON.parse(
        JSON.stringify(
          buildOpenApiDocument({ revision: LATEST_REVISION, problemBaseUri: PROBLEMS }),
        ),
      ),
    );
  });

  it("serves the document of the revision asked for, and refuses one that does not exist", async () => {
    for (const revision of API_REVISIONS) {
      expect((await served(revision)).info.version).toBe(revision);
    }
    for (const query of ["?revision=2025-12-01", "?revision=latest", "?revision=a&revision=b"]) {
      const response = await fetch(`${app.baseUrl}/openapi.json${query}`);
      expect(response.status, query).toBe(400);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      const problem = problemSchema.parse(await response.json());
      expect(problem.type).toBe(`${PROBLEMS}/unknown-api-revision`);
      expect(problem.detail).toContain(API_REVISIONS.join(", "));
    }
  });

  it("is revalidated with its ETag, in each encoding", async () => {
    const plain = await fetch(`${app.baseUrl}/openapi.json`, {
      headers: { "accept-encoding": "identity" },
    });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("cache-control")).toBe("no-cache");
    const etag = plain.headers.get("etag");
    expect(etag).toMatch(/^"[\w-]+"$/);
    const text = await plain.text();

    const compressed = await fetch(`${app.baseUrl}/openapi.json`, {
      headers: { "accept-encoding": "gzip" },
    });
    expect(compressed.headers.get("content-encoding")).toBe("gzip");
    expect(compressed.headers.get("vary")).toMatch(/accept-encoding/i);
    expect(compressed.headers.get("etag")).not.toBe(etag);
    expect(await compressed.text()).toBe(text);
    expect(Number(compressed.headers.get("content-length"))).toBeLessThan(text.length / 5);

    const identity = { "accept-encoding": "identity" };
    expect((await revalidate(`${app.baseUrl}/openapi.json`, etag!, identity)).status).toBe(304);
    const gzipTag = compressed.headers.get("etag")!;
    const gzip = { "accept-encoding": "gzip" };
    expect((await revalidate(`${app.baseUrl}/openapi.json`, gzipTag, gzip)).status).toBe(304);
    const otherRevision = await revalidate(
      `${app.baseUrl}/openapi.json?revision=2026-01-01`,
      etag!,
      identity,
    );
    expect(otherRevision.status).toBe(200);
  });
});

describe("the document passes @redocly/cli lint", () => {
  let reports: Record<string, LintReport>;

  beforeAll(async () => {
    const documents: Record<string, OpenApiDocument> = {};
    for (const revision of API_REVISIONS) documents[revision] = await served(revision);
    // And a document that is wrong, which the linter must fail.
    const broken = buildOpenApiDocument({ problemBaseUri: PROBLEMS });
    const calculate = operationOf(broken, OPERATIONS.calculateProductPoints);
    (
      calculate.responses["200"]!.content!["application/json"]!.example as { points: unknown }
    ).points = "many";
    documents["broken"] = broken;
    reports = await lint(documents);
  });

  it.each(API_REVISIONS)("revision %s: no error, no warning", (revision) => {
    const { totals, problems } = reports[revision]!;
    expect(problems).toEqual([]);
    expect(totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it("and the linter does fail a document that is wrong", () => {
    expect(reports["broken"]!.problems.join("\n")).toContain("no-invalid-media-type-examples");
  });
});

describe("the document's operations", () => {
  const documents = Object.fromEntries(
    API_REVISIONS.map((revision) => [
      revision,
      buildOpenApiDocument({ revision, problemBaseUri: PROBLEMS }),
    ]),
  ) as Record<ApiRevision, OpenApiDocument>;
  const latest = documents[LATEST_REVISION];

  it("are every public and back-office operation, named as in the registries", () => {
    const documented = Object.values(latest.paths).flatMap((methods) =>
      Object.values(methods).map((operation) => operation.operationId),
    );
    expect(documented.sort()).toEqual(OPERATION_LIST.map(([name]) => name).sort());
    for (const [name, definition] of OPERATION_LIST) {
      const operation = operationOf(latest, definition);
      expect(operation?.operationId, `${definition.method} ${definition.path}`).toBe(name);
      expect(operation.summary).toBe(definition.summary);
      expect(operation.tags).toEqual([definition.tag]);
    }
  });

  it("take the revision header as the spec declares it, in every revision", () => {
    for (const revision of API_REVISIONS) {
      const document = documents[revision];
      expect(document.components.parameters.revision).toMatchObject({
        name: "revision",
        in: "header",
        required: true,
        schema: { type: "string", enum: [revision], default: revision },
      });
      expect(document.components.parameters.revision!.description).toContain(
        `oldest supported revision, ${API_REVISIONS[0]}`,
      );
      for (const [, definition] of OPERATION_LIST) {
        expect(operationOf(document, definition).parameters[0]).toEqual({
          $ref: "#/components/parameters/revision",
        });
      }
    }
  });

  it("declare the spec's three security schemes and bearer, and use the operation's", () => {
    expect(latest.components.securitySchemes).toMatchObject({
      basicAuth: { type: "http", scheme: "basic" },
      customerHash: { type: "apiKey", in: "query", name: "hash" },
      bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
    });
    const expected = {
      basic: [{ basicAuth: [] }],
      hmac: [{ customerHash: [] }],
      bearer: [{ bearerAuth: [] }],
      public: [],
    };
    for (const [name, definition] of OPERATION_LIST) {
      expect(operationOf(latest, definition).security, name).toEqual(expected[definition.auth]);
    }
    const history = operationOf(latest, OPERATIONS.getCustomerHistory);
    expect(parameter(history, "domain", "query")?.required).toBe(true);
    expect(parameter(history, "externalId", "path")?.required).toBe(true);
    // The security scheme carries it: a parameter as well would have tools send it twice.
    expect(parameter(history, "hash", "query")).toBeUndefined();
    const referral = operationOf(latest, OPERATIONS.createReferral);
    expect(parameter(referral, "externalId", "query")?.required).toBe(true);
  });

  it("show query and path numbers as numbers, with their limits", () => {
    const calculate = operationOf(latest, OPERATIONS.calculateProductPoints);
    expect(parameter(calculate, "price", "query")).toMatchObject({
      required: true,
      schema: { type: "number", minimum: 1 },
    });
    expect(parameter(calculate, "product", "query")).toMatchObject({
      required: false,
      schema: { type: "integer", minimum: 0 },
    });
    expect(parameter(calculate, "categories", "query")?.schema).toMatchObject({
      type: "array",
      items: { type: "integer" },
    });
    expect(parameter(calculate, "domain", "query")?.schema).toMatchObject({
      type: "string",
      minLength: 6,
    });
    const reward = operationOf(latest, ADMIN_OPERATIONS.getAdminReward);
    expect(parameter(reward, "storeId", "path")?.schema).toMatchObject({
      type: "integer",
      minimum: 1,
    });
  });

  it("have an example for every request and response body", () => {
    for (const revision of API_REVISIONS) {
      for (const [name, definition] of OPERATION_LIST) {
        const operation = operationOf(documents[revision], definition);
        const label = `${name} ${revision}`;
        if (definition.body) {
          expect(operation.requestBody?.content["application/json"]?.example, label).toBeDefined();
        } else {
          expect(operation.requestBody, label).toBeUndefined();
        }
        const success = operation.responses[String(definition.successStatus)];
        if (definition.response) {
          expect(success?.content?.["application/json"]?.example, label).toBeDefined();
        } else {
          expect(success?.content, label).toBeUndefined();
        }
      }
    }
  });

  it("answer every reason of the operation, grouped by status, in the revision's format", () => {
    for (const revision of API_REVISIONS) {
      for (const [name, definition] of OPERATION_LIST) {
        const operation = operationOf(documents[revision], definition);
        const reasons = [...definition.errors, ...COMMON_ERROR_REASONS];
        const statuses = new Set(reasons.map((reason) => String(ERROR_REASONS[reason].status)));
        const errorStatuses = Object.keys(operation.responses).filter(
          (status) => Number(status) >= 400,
        );
        expect(errorStatuses.sort(), `${name} ${revision}`).toEqual([...statuses].sort());
        for (const reason of reasons) {
          const label = `${name} ${revision} ${reason}`;
          const response = operation.responses[String(ERROR_REASONS[reason].status)]!;
          expect(response.description, label).toContain(`\`${reason}\``);
          const revisionReason =
            reason === "invalid-revision-header" || reason === "unknown-api-revision";
          if (revision >= "2026-08-26" || revisionReason) {
            const problem = response.content?.[PROBLEM_CONTENT_TYPE];
            const typeSchema = (jsonBody(problem).allOf as JsonSchema[])[1] as {
              properties: { type: { enum: string[] } };
            };
            expect(typeSchema.properties.type.enum, label).toContain(`${PROBLEMS}/${reason}`);
            const example = problem?.examples?.[reason]?.value;
            expect(problemSchema.parse(example).type, label).toBe(`${PROBLEMS}/${reason}`);
          } else {
            const legacy = response.content?.["application/json"];
            expect(legacy?.examples?.[reason]?.value, label).toMatchObject({
              statusCode: ERROR_REASONS[reason].status,
            });
          }
        }
      }
    }
  });

  it("show both 404 bodies of the claim: the problem and the refusal with a null code", () => {
    const latestNotFound = operationOf(latest, OPERATIONS.claimReward).responses["404"]!;
    expect(Object.keys(latestNotFound.content!).sort()).toEqual(
      ["application/json", PROBLEM_CONTENT_TYPE].sort(),
    );
    const refusal = latestNotFound.content!["application/json"]!;
    expect(jsonBody(refusal)).toMatchObject({
      properties: { code: { type: "null" } },
      required: expect.arrayContaining(["code"]) as unknown,
    });
    expect(refusal.examples?.refused?.value).toMatchObject({ code: null });

    const legacyNotFound = operationOf(documents["2026-01-01"], OPERATIONS.claimReward).responses[
      "404"
    ]!;
    const legacy = legacyNotFound.content!["application/json"]!;
    expect(jsonBody(legacy).oneOf).toEqual([
      { $ref: "#/components/schemas/LegacyError" },
      jsonBody(refusal),
    ]);
    expect(legacy.examples?.refused?.value).toMatchObject({ code: null });
    expect(legacy.examples?.["not-found"]?.value).toMatchObject({ statusCode: 404 });
  });

  it("say how large a body each operation reads", () => {
    const latest = documents["2026-08-26"];
    expect(operationOf(latest, OPERATIONS.registerOrder).requestBody?.description).toBe(
      "At most 524288 bytes: a larger body is refused (400 validation-failed) without being read.",
    );
    expect(operationOf(latest, OPERATIONS.claimReward).requestBody?.description).toContain(
      "At most 1024 bytes",
    );
  });

  it("show each revision's order: externalRef in 2026-01-01, externalId from 2026-06-18", () => {
    const register = (revision: ApiRevision) => {
      const operation = operationOf(documents[revision], OPERATIONS.registerOrder);
      const request = operation.requestBody!.content["application/json"]!;
      const response = operation.responses["201"]!.content!["application/json"]!;
      return { request, response };
    };
    const v1 = register("2026-01-01");
    expect(jsonBody(v1.request).required).toContain("externalRef");
    expect(jsonBody(v1.request).required).not.toContain("externalId");
    expect(v1.request.example).toMatchObject({ externalRef: "5001" });
    expect(jsonBody(v1.response).required).toContain("externalRef");

    for (const revision of ["2026-06-18", "2026-08-26"] as const) {
      const current = register(revision);
      expect(jsonBody(current.request).required, revision).toContain("externalId");
      expect(jsonBody(current.request).required, revision).not.toContain("externalRef");
      expect(
        (jsonBody(current.request).properties as Record<string, JsonSchema>).externalId,
      ).toMatchObject({ type: "integer" });
      expect(current.request.example).toMatchObject({ externalId: 5001 });
      expect(jsonBody(current.response).required).toContain("externalId");
    }
  });

  it("document the response headers: revision, X-Request-Id, Deprecation, Sunset and the rate limit's", () => {
    const common = [
      "Deprecation",
      "Sunset",
      "X-Request-Id",
      "revision",
      "RateLimit",
      "RateLimit-Policy",
    ];
    expect(Object.keys(latest.components.headers).sort()).toEqual(
      [...common, "Idempotent-Replayed", "Retry-After"].sort(),
    );
    for (const [name, definition] of OPERATION_LIST) {
      // Replays answer the operations that take an Idempotency-Key: every POST but the sign-in.
      const replayable = definition.method === "POST" && name !== "createAdminToken";
      const expected = replayable ? [...common, "Idempotent-Replayed"] : common;
      const responses = operationOf(latest, definition).responses;
      // Every operation may be rate-limited, and says when to come back.
      expect(Object.keys(responses), name).toContain("429");
      for (const [status, response] of Object.entries(responses)) {
        expect(Object.keys(response.headers ?? {}).sort(), `${name} ${status}`).toEqual(
          (status === "429" ? [...expected, "Retry-After"] : expected).sort(),
        );
      }
    }
  });

  it("take an optional Idempotency-Key on every POST but the sign-in", () => {
    expect(latest.components.parameters.idempotencyKey).toMatchObject({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      schema: { type: "string", minLength: 1, maxLength: 255 },
    });
    for (const [name, definition] of OPERATION_LIST) {
      const refs = operationOf(latest, definition).parameters.filter((entry) => "$ref" in entry);
      const replayable = definition.method === "POST" && name !== "createAdminToken";
      expect(refs, name).toEqual([
        { $ref: "#/components/parameters/revision" },
        ...(replayable ? [{ $ref: "#/components/parameters/idempotencyKey" }] : []),
      ]);
    }
  });
});

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  slash?: boolean;
}

/** The (method, path) of every route the Express app registers, through nested routers. */
function registeredRoutes(stack: Layer[]): string[] {
  return stack.flatMap((layer) => {
    if (layer.route) {
      const { route } = layer;
      return Object.keys(route.methods).flatMap((method) =>
        [route.path].flat().map((routePath) => `${method.toUpperCase()} ${openApiPath(routePath)}`),
      );
    }
    if (!layer.handle?.stack) return [];
    // Every router is mounted at "/" and holds full paths; another mount would prefix them.
    expect(layer.slash, "a router mounted elsewhere than /").toBe(true);
    return registeredRoutes(layer.handle.stack);
  });
}

describe("route coverage", () => {
  const OUTSIDE_THE_API = /^\w+ \/(openapi\.json|docs|healthz|readyz)(\/|$)/;

  const routes = () => {
    const express = createApp(app.context) as unknown as { router: { stack: Layer[] } };
    // CORS preflights (OPTIONS) answer for the operations on their path; they are none.
    return registeredRoutes(express.router.stack).filter(
      (route) => !OUTSIDE_THE_API.test(route) && !route.startsWith("OPTIONS "),
    );
  };

  it("routes every operation of the document, and documents every route", () => {
    const registered = new Set(routes());
    const documented = new Set(
      Object.entries(buildOpenApiDocument({ problemBaseUri: PROBLEMS }).paths).flatMap(
        ([documentPath, methods]) =>
          Object.keys(methods).map((method) => `${method.toUpperCase()} ${documentPath}`),
      ),
    );
    expect({
      documentedButNotRouted: [...documented].filter((route) => !registered.has(route)).sort(),
      routedButNotDocumented: [...registered].filter((route) => !documented.has(route)).sort(),
    }).toEqual({ documentedButNotRouted: [], routedButNotDocumented: [] });
  });
});

describe("GET /docs", () => {
  it("redirects to /docs/, whose relative URLs resolve", async () => {
    const response = await fetch(`${app.baseUrl}/docs`, { redirect: "manual" });
    expect(response.status).toBe(301);
    expect(new URL(response.headers.get("location")!, `${app.baseUrl}/docs`).pathname).toBe(
      "/docs/",
    );
  });

  it("is a Swagger UI page under a strict Content-Security-Policy, whose assets are served", async () => {
    const response = await fetch(`${app.baseUrl}/docs/`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    const html = await response.text();

    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThanOrEqual(3);
    for (const [, attributes, body] of scripts) {
      expect(attributes, "no inline script").toMatch(/src="/);
      expect(body!.trim()).toBe("");
    }
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, url]) => url!);
    expect(assets).toEqual(
      expect.arrayContaining(["swagger-ui-bundle.js", "swagger-ui.css", "loyalty-docs.js"]),
    );
    const types: Record<string, RegExp> = {
      js: /^(text|application)\/javascript/,
      css: /^text\/css/,
      png: /^image\/png/,
    };
    for (const asset of assets) {
      const served = await fetch(new URL(asset, `${app.baseUrl}/docs/`));
      expect(served.status, asset).toBe(200);
      expect(served.headers.get("content-type"), asset).toMatch(types[asset.split(".").pop()!]!);
      expect(served.headers.get("x-content-type-options"), asset).toBe("nosniff");
      expect((await served.arrayBuffer()).byteLength, asset).toBeGreaterThan(100);
    }
  });

  it("points Swagger UI at this server's document, one entry per supported revision", async () => {
    const script = await (await fetch(`${app.baseUrl}/docs/loyalty-docs.js`)).text();
    for (const revision of API_REVISIONS) {
      expect(script).toContain(`../openapi.json?revision=${revision}`);
    }
    expect(script).toContain(`"urls.primaryName": "Revision ${LATEST_REVISION}"`);
    expect(script).toContain("validatorUrl: null");
  });

  it("does not serve the package's own petstore page and initializer", async () => {
    for (const file of ["index.html", "swagger-initializer.js", "oauth2-redirect.html"]) {
      const response = await fetch(`${app.baseUrl}/docs/${file}`);
      expect(response.status, file).toBe(404);
    }
  });
});
