import { createHmac } from "node:crypto";
import { STATUS_CODES } from "node:http";
import querystring, { type ParsedUrlQuery } from "node:querystring";
import {
  recordActivityRequestSchema,
  ADMIN_OPERATIONS,
  API_REVISIONS,
  COMMON_ERROR_REASONS,
  ERROR_REASONS,
  OPERATION_EXAMPLES,
  PARAMETER_EXAMPLES,
  OPERATIONS,
  calculateManyPointsQuerySchema,
  calculatePointsQuerySchema,
  claimRefusalSchema,
  claimRewardRequestSchema,
  createReferralRequestSchema,
  domainSchema,
  externalIdTextSchema,
  idTextSchema,
  legacyErrorSchema,
  normalizeDomain,
  orderSchemasFor,
  problemSchema,
  reasonFromProblemType,
  refereeCodeRequestSchema,
  usesProblemDetails,
  type ApiRevision,
  type ErrorReason,
  type OperationDefinition,
} from "@loyalty/shared-types";
import fc from "fast-check";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toJSONSchema, type z } from "zod";
import { adminSession, type AdminSession } from "./support/admin.js";
import { basic, startTestApp, type TestApp } from "./support/app.js";
import { snapshotDatabase, type DatabaseSnapshot } from "./support/db-snapshot.js";
import { addReward, addRule, customerWithPoints, storeWithKey } from "./support/fixtures.js";

/*
 * The issue's "bad input" suite: for every operation of the spec (and of the back-office),
 * fast-check generates requests that are wrong in one or more ways (bodies, query strings, path
 * parameters, and the revision, Authorization, hash and domain) while the other parts are often
 * right, so that each gets past the early checks. Every answer must be a client error of the
 * operation's catalogue, in the format of the request's revision, naming one of the faults the
 * request has, never a 500 and never a success; and nothing may be written to the database.
 *
 * Each request carries its expectation: `faults`, the reasons it certainly deserves (the server
 * may answer any of them, in the order its checks run), and `maybe`, reasons it may deserve
 * (a body nested deeper than sensible, say). A request without faults may succeed only when it
 * writes nothing (a GET); any other is discarded before it is sent.
 */

/**
 * Runs per operation of the spec: 100, or BAD_INPUT_RUNS (`pnpm test:fast` sets 10). Those whose
 * store may refuse good bodies get half as many again, each back-office operation a quarter.
 */
const RUNS = runsFromEnvironment(process.env["BAD_INPUT_RUNS"], 100);
const RUNS_WITH_STORE_REFUSALS = Math.ceil(RUNS * 1.5);
const ADMIN_RUNS = Math.ceil(RUNS / 4);
/** 90 s for 100 runs, longer for more. */
const TIMEOUT = 90_000 * Math.max(1, RUNS / 100);

function runsFromEnvironment(value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const runs = Number(value);
  if (!Number.isInteger(runs) || runs < 1) {
    throw new Error(`BAD_INPUT_RUNS must be a whole number of runs, at least 1: ${value}`);
  }
  return runs;
}

/** The day the suite pretends it is: every revision is stable. */
const TODAY = new Date("2026-11-22T12:00:00Z");
/** 2026-01-01 is retired, the other two are deprecated. */
const LATER = new Date("2028-03-01T12:00:00Z");

interface Calendar {
  now: Date;
  /** Served without a revision header. */
  oldest: ApiRevision;
  supported: readonly ApiRevision[];
  deprecated: readonly ApiRevision[];
}

const CALENDARS = {
  today: {
    now: TODAY,
    oldest: "2026-01-01",
    supported: API_REVISIONS,
    deprecated: [],
  },
  later: {
    now: LATER,
    oldest: "2026-06-18",
    supported: ["2026-06-18", "2026-08-26"],
    deprecated: ["2026-06-18", "2026-08-26"],
  },
} as const satisfies Record<string, Calendar>;

/** What a request may be answered with besides the reasons of the catalogue. */
type Outcome = ErrorReason | "claim-refusal";

type RevisionExpectation =
  | { served: ApiRevision; deprecated: boolean }
  | { refused: "invalid-revision-header" | "unknown-api-revision" };

interface Plan {
  operation: string;
  definition: OperationDefinition;
  method: string;
  /** As sent (percent-encoded), and as the problem's `instance` names it. */
  path: string;
  /** As sent, without "?". */
  query: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  revision: RevisionExpectation;
  /** What is wrong with the request: the answer is one of these (or of `maybe`). */
  faults: Outcome[];
  /** What the request may also be refused for. */
  maybe: Outcome[];
}

/* ---------------------------------------------------------------------------------------- */
/* The seeded world                                                                          */
/* ---------------------------------------------------------------------------------------- */

interface SeededStore {
  id: number;
  domain: string;
  reference: string;
  /** Active API keys. */
  keys: string[];
  customers: Map<number, { points: number; email: string }>;
  rewards: Map<number, { active: boolean; cost: number }>;
  referralProgram: boolean;
  pending: Set<string>;
  completed: Set<string>;
}

let app: TestApp;
let problemBase: string;
let shop: SeededStore;
let other: SeededStore;
let revokedKey: string;
let serviceAdmin: AdminSession;
/** An admin of `other` only. */
let storeAdmin: AdminSession;

const RICH = 1001;
const POOR = 1002;
/** A customer the store has never met. */
const GHOST = 1003;
const OTHER_CUSTOMER = 2001;

beforeAll(async () => {
  app = await startTestApp();
  app.setNow(TODAY);
  problemBase = app.context.config.problemBaseUri;
  const { pool, services } = app.context;
  const shopFixture = await storeWithKey(app, "https://bad-input.example");
  const otherFixture = await storeWithKey(app, "https://other.bad-input.example");
  revokedKey = (await services.apiKeys.create(shopFixture.store.reference)).key;
  await services.apiKeys.revoke(revokedKey);

  await customerWithPoints(pool, shopFixture.store.id, RICH, 1000, "rich@bad-input.example");
  await customerWithPoints(pool, shopFixture.store.id, POOR, 10, "poor@bad-input.example");
  await customerWithPoints(pool, otherFixture.store.id, OTHER_CUSTOMER, 1000, "other@example.org");
  await addRule(pool, shopFixture.store.id, { kind: "default", rate: 1 });
  await addRule(pool, shopFixture.store.id, { kind: "product", targetId: 10, rate: 2 });
  const reward = await addReward(pool, shopFixture.store.id, { triggerValue: 500 });
  const inactive = await addReward(pool, shopFixture.store.id, {
    triggerValue: 100,
    active: false,
  });
  const otherReward = await addReward(pool, otherFixture.store.id, { triggerValue: 50 });
  await services.referrals.saveProgram(shopFixture.store.id, {
    referrerBonus: 100,
    refereeVoucher: { kind: "free_shipping" },
  });

  shop = {
    id: shopFixture.store.id,
    domain: shopFixture.store.domain,
    reference: shopFixture.store.reference,
    keys: [shopFixture.key],
    customers: new Map([
      [RICH, { points: 1000, email: "rich@bad-input.example" }],
      [POOR, { points: 10, email: "poor@bad-input.example" }],
    ]),
    rewards: new Map([
      [reward.rewardId, { active: true, cost: 500 }],
      [inactive.rewardId, { active: false, cost: 100 }],
    ]),
    referralProgram: true,
    pending: new Set(["pending@bad-input.example"]),
    completed: new Set(["completed@bad-input.example"]),
  };
  other = {
    id: otherFixture.store.id,
    domain: otherFixture.store.domain,
    reference: otherFixture.store.reference,
    keys: [otherFixture.key],
    customers: new Map([[OTHER_CUSTOMER, { points: 1000, email: "other@example.org" }]]),
    rewards: new Map([[otherReward.rewardId, { active: true, cost: 50 }]]),
    referralProgram: false,
    pending: new Set(),
    completed: new Set(),
  };

  // Two invitations through the API; the second one's referee has since ordered.
  for (const email of ["pending@bad-input.example", "completed@bad-input.example"]) {
    const query = new URLSearchParams({
      externalId: String(RICH),
      hash: customerHash(shop.reference, shopFixture.key, String(RICH)),
      domain: shop.domain,
    });
    const response = await fetch(`${app.baseUrl}/point/referral?${query.toString()}`, {
      method: "POST",
      headers: { "content-type": "application/json", revision: "2026-08-26" },
      body: JSON.stringify({ email }),
    });
    expect(response.status).toBe(201);
  }
  await pool.query(
    `UPDATE referrals SET status = 'completed', completed_at = now() WHERE email = $1`,
    ["completed@bad-input.example"],
  );

  serviceAdmin = await adminSession(app);
  storeAdmin = await adminSession(app, { storeReference: other.reference });
}, 60_000);

afterAll(() => app?.close());

function customerHash(reference: string, key: string, externalIdText: string): string {
  return createHmac("sha512", `${reference}:${key}`).update(externalIdText).digest("hex");
}

const stores = () => [shop, other];

/** The store a domain names, as the service looks it up (case and trailing slash ignored). */
function storeOfDomain(value: unknown): SeededStore | undefined {
  if (typeof value !== "string" || !domainSchema.safeParse(value).success) return undefined;
  return stores().find((store) => store.domain === normalizeDomain(value));
}

/* ---------------------------------------------------------------------------------------- */
/* Generators: text                                                                          */
/* ---------------------------------------------------------------------------------------- */

/** What an HTTP header value may carry (fetch refuses the rest): tab, visible ASCII, Latin-1. */
const latin1Char = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(9))
  .map((code) => String.fromCharCode(code));
const headerText = (maxLength = 40) => fc.string({ unit: latin1Char, maxLength });

/** Percent-encodes every byte of the UTF-8 text but the unreserved characters. */
function percentEncode(text: string): string {
  let encoded = "";
  for (const byte of Buffer.from(text, "utf8")) {
    const char = String.fromCharCode(byte);
    encoded += /[A-Za-z0-9\-_.~]/.test(char)
      ? char
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return encoded;
}

/** Already "encoded": broken percent-encoding, encoded invalid UTF-8, separators. */
const rawGarbage = fc.constantFrom(
  "%",
  "%Z",
  "%ZZ",
  "%E0%A4%A",
  "%ED%A0%80",
  "%C0%AF",
  "%FF%FE",
  "%00",
  "%0A",
  "+",
  "%2B",
  "a=b",
  "%25",
  "%%",
  "%u0041",
  "[]",
);

const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ maxLength: 30 }),
);

/** A query or path value as sent: encoded text, or raw garbage. */
const rawValue = fc.oneof({ weight: 3, arbitrary: anyText.map(percentEncode) }, rawGarbage);

/* ---------------------------------------------------------------------------------------- */
/* Generators: the revision header                                                           */
/* ---------------------------------------------------------------------------------------- */

interface RevisionChoice {
  header: string | undefined;
  expect: RevisionExpectation;
}

const pad = (value: number, length: number) => String(value).padStart(length, "0");
const DAY_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

function revisionArb(calendar: Calendar): fc.Arbitrary<RevisionChoice> {
  const served = (revision: ApiRevision): RevisionChoice["expect"] => ({
    served: revision,
    deprecated: calendar.deprecated.includes(revision),
  });
  const invalid = (header: string): RevisionChoice => ({
    header,
    expect: { refused: "invalid-revision-header" },
  });
  const unknown = (header: string): RevisionChoice => ({
    header,
    expect: { refused: "unknown-api-revision" },
  });
  const year = fc.integer({ min: 0, max: 9999 });
  const day = (y: number, m: number, d: number) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant({ header: undefined, expect: served(calendar.oldest) }) },
    {
      weight: 9,
      arbitrary: fc
        .constantFrom(...calendar.supported)
        .map((revision) => ({ header: revision, expect: served(revision) })),
    },
    // Retired revisions and days that name no revision.
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          fc.constantFrom(
            // Retired ones (none today): unknown too.
            ...API_REVISIONS.filter((r) => !calendar.supported.includes(r)),
            "2025-01-01",
            "2026-08-27",
          ),
          fc
            .date({
              min: new Date("0001-01-01T00:00:00Z"),
              max: new Date("9999-12-31T00:00:00Z"),
              noInvalidDate: true,
            })
            .map((date) => date.toISOString().slice(0, 10))
            .filter((value) => !(API_REVISIONS as readonly string[]).includes(value)),
        )
        .map(unknown),
    },
    // Not a calendar day: any text, impossible days, near misses.
    {
      weight: 2,
      arbitrary: fc.oneof(
        headerText()
          .filter((value) => !DAY_SHAPE.test(value.replace(/^[\t ]+|[\t ]+$/g, "")))
          .map(invalid),
        fc
          .oneof(
            fc.tuple(year, fc.constantFrom(0, 13, 19, 20, 99), fc.integer({ min: 1, max: 28 })),
            fc.tuple(year, fc.integer({ min: 1, max: 12 }), fc.constantFrom(0, 32, 40, 99)),
            fc.tuple(year, fc.constantFrom(2, 4, 6, 9, 11), fc.constant(31)),
            fc.tuple(year, fc.constant(2), fc.constant(30)),
            fc.tuple(fc.constantFrom(1900, 2026, 2027, 2100), fc.constant(2), fc.constant(29)),
          )
          .map(([y, m, d]) => invalid(day(y, m, d))),
        fc
          .constantFrom(
            "2026-08-26T00:00:00Z",
            "2026-8-26",
            "20260826",
            "2026/08/26",
            "26-08-2026",
            "2026-08-26, 2026-06-18",
            "2026-08-26,2026-08-26",
            "latest",
            "v2026-08-26",
            "+2026-08-26",
            "2026-08-26.",
            "2026-08-26x",
            "2026\t08\t26",
            "2026-08-26\t2026",
            "",
          )
          .map(invalid),
      ),
    },
  );
}

/* ---------------------------------------------------------------------------------------- */
/* Generators: bodies                                                                        */
/* ---------------------------------------------------------------------------------------- */

interface BodyChoice {
  bytes?: string | Uint8Array;
  headers: Record<string, string>;
}

/** The server's BODY_LIMIT: the largest body an operation without a limit of its own reads. */
const BODY_LIMIT = 1024 * 1024;
/** Nesting no request body needs: the server may refuse it (validation-failed). */
const SENSIBLE_DEPTH = 32;

type Json = unknown;
type JsonPath = (string | number)[];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nestedArrays(depth: number, inner: Json = 1): Json {
  let value = inner;
  for (let i = 0; i < depth; i += 1) value = [value];
  return value;
}

const badValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    null,
    true,
    false,
    "",
    " ",
    "NaN",
    "Infinity",
    "-1",
    "1e400",
    "0x1F",
    "١٢٣",
    "💳",
    "\u202egnp.exe",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    [],
    {},
    [null],
    -1,
    -0.5,
    0,
    0.001,
    1.5,
    1e21,
    1e308,
    -1e308,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 63),
    4294967296,
  ),
  fc.integer(),
  fc.double({ noNaN: true }),
  anyText,
  fc.integer({ min: 256, max: 70_000 }).map((length) => "x".repeat(length)),
  fc.integer({ min: 2, max: 300 }).map((depth) => nestedArrays(depth)),
  fc.jsonValue({ maxDepth: 2 }),
);

const fieldName = fc.oneof(
  fc.constantFrom(
    "externalId",
    "externalRef",
    "externalReference",
    "rewardId",
    "email",
    "referralHash",
    "customer",
    "lines",
    "status",
    "points",
    "__proto__",
    "constructor",
    "prototype",
    "toString",
    "",
  ),
  fc.string({ unit: "binary", maxLength: 10 }),
);

type Mutation =
  | { kind: "set"; at: number; value: Json }
  | { kind: "delete"; at: number }
  | { kind: "add"; at: number; key: string; value: Json };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("set" as const), at: fc.nat(), value: badValue }),
  fc.record({ kind: fc.constant("delete" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("add" as const), at: fc.nat(), key: fieldName, value: badValue }),
);

function pathsOf(value: Json, prefix: JsonPath = [], out: JsonPath[] = []): JsonPath[] {
  const entries: [string | number, Json][] = Array.isArray(value)
    ? value.map((item, index) => [index, item])
    : isRecord(value)
      ? Object.entries(value)
      : [];
  for (const [key, item] of entries) {
    out.push([...prefix, key]);
    pathsOf(item, [...prefix, key], out);
  }
  return out;
}

function at(root: Json, path: JsonPath): Json {
  return path.reduce<Json>((node, key) => (node as Record<string | number, Json>)[key], root);
}

/** Defines an own property, even `__proto__`, as JSON.parse would, with a copy of `value`. */
function put(target: Record<string | number, Json>, key: string | number, value: Json): void {
  const copy = structuredClone(value);
  if (Array.isArray(target)) target[key as number] = copy;
  else {
    Object.defineProperty(target, key, {
      value: copy,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
}

function applyMutations(template: Json, mutations: Mutation[]): Json {
  let root: Json = JSON.parse(JSON.stringify(template));
  for (const change of mutations) {
    const paths = pathsOf(root);
    if (change.kind === "add") {
      const containers = [[], ...paths].filter((path) => isRecord(at(root, path)));
      const path = containers[change.at % containers.length];
      if (path) put(at(root, path) as Record<string, Json>, change.key, change.value);
      continue;
    }
    const path = paths[change.at % Math.max(paths.length, 1)];
    if (!path || path.length === 0) {
      if (change.kind === "set") root = structuredClone(change.value);
      continue;
    }
    const parent = at(root, path.slice(0, -1)) as Record<string | number, Json>;
    const key = path[path.length - 1] as string | number;
    if (change.kind === "set") put(parent, key, change.value);
    else if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  }
  return root;
}

const JSON_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json;charset=UTF-8",
] as const;
const jsonType = fc.constantFrom(...JSON_TYPES);
const json = (bytes: string | Uint8Array, type: string): BodyChoice => ({
  bytes,
  headers: { "content-type": type },
});

let oversized: string | undefined;

/**
 * Bodies for an operation whose valid bodies look like `templates`: mutated templates (wrong
 * types, missing and extra fields, huge, negative and NaN-like values, unicode, deep nesting),
 * arbitrary JSON, text that is not JSON, invalid UTF-8, deep nesting, an oversized body, other
 * content types, encodings and charsets, and nothing at all.
 */
function bodyArb(templates: readonly Json[], goodWeight = 4): fc.Arbitrary<BodyChoice> {
  const template = fc.constantFrom(...templates);
  const templateText = template.map((value) => JSON.stringify(value));
  oversized ??= JSON.stringify({ pad: "x".repeat(BODY_LIMIT + 16) });
  const big = oversized;
  return fc.oneof(
    // Good bodies: other parts of the request are wrong, or the store refuses (a claim
    // beyond the customer's points, a referral of a customer).
    {
      weight: goodWeight,
      arbitrary: fc.tuple(templateText, jsonType).map(([text, type]) => json(text, type)),
    },
    {
      weight: 8,
      arbitrary: fc
        .tuple(template, fc.array(mutation, { minLength: 1, maxLength: 3 }), jsonType)
        .map(([value, changes, type]) =>
          json(JSON.stringify(applyMutations(value, changes)), type),
        ),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(
          fc.oneof(
            fc.jsonValue({ maxDepth: 4 }),
            fc.jsonValue({ maxDepth: 3, stringUnit: "binary" }),
          ),
          jsonType,
        )
        .map(([value, type]) => json(JSON.stringify(value), type)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.oneof(
            anyText,
            templateText.chain((text) =>
              fc.nat({ max: text.length }).map((end) => text.slice(0, end)),
            ),
            templateText.map((text) => `${text} trailing`),
            templateText.map((text) => text.replace(/"/g, "'")),
            templateText.map((text) => text.replace(/:\s*[\d.]+/, ": NaN")),
            templateText.map((text) => `/* comment */ ${text}`),
            fc.constantFrom("null", "true", "0", '"text"', "[", "{", "}", "{]", "{,}", '{"a" 1}'),
          ),
          jsonType,
        )
        .map(([text, type]) => json(text, type)),
    },
    {
      // Invalid UTF-8 somewhere in a body that is otherwise good.
      weight: 2,
      arbitrary: fc
        .tuple(
          templateText,
          fc.nat(),
          fc.uint8Array({ minLength: 1, maxLength: 4, min: 0x80, max: 0xff }),
          jsonType,
        )
        .map(([text, position, bytes, type]) => {
          const buffer = Buffer.from(text, "utf8");
          const cut = position % (buffer.length + 1);
          return json(Buffer.concat([buffer.subarray(0, cut), bytes, buffer.subarray(cut)]), type);
        }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 1_000, max: 200_000 }), fc.boolean(), templateText, jsonType)
        .map(([depth, objects, text, type]) => {
          const deep = objects
            ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`
            : `${"[".repeat(depth)}${"]".repeat(depth)}`;
          // Alone, or as an extra member of a good body.
          return json(depth % 2 ? deep : text.replace(/^\{/, `{"deep":${deep},`), type);
        }),
    },
    { weight: 1, arbitrary: jsonType.map((type) => json(big, type)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          templateText,
          fc.constantFrom(
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/xml",
            "application/vnd.api+json",
            undefined,
          ),
        )
        .map(([text, type]) =>
          type === undefined ? { bytes: Buffer.from(text), headers: {} } : json(text, type),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.oneof(templateText, anyText),
          fc.constantFrom("gzip", "deflate", "br", "compress", "zzz"),
          jsonType,
        )
        .map(([text, encoding, type]) => ({
          bytes: text,
          headers: { "content-type": type, "content-encoding": encoding },
        })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          templateText,
          fc.constantFrom("koi8-r", "latin1", "iso-8859-1", "ascii", "shift_jis"),
        )
        .map(([text, charset]) => json(text, `application/json; charset=${charset}`)),
    },
    { weight: 1, arbitrary: jsonType.map((type) => json("", type)) },
  );
}

type BodyRead = { refused: true } | { refused: false; value: unknown; mayRefuse: boolean };

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a parsed JSON value holds text PostgreSQL cannot store, and how deep it nests. */
function inspect(value: unknown): { unstorable: boolean; depth: number } {
  let depth = 0;
  const stack: [unknown, number][] = [[value, 1]];
  const unstorable = (text: string) => text.includes("\u0000") || LONE_SURROGATE.test(text);
  while (stack.length > 0) {
    const [node, level] = stack.pop() as [unknown, number];
    if (typeof node === "string") {
      if (unstorable(node)) return { unstorable: true, depth };
    } else if (node !== null && typeof node === "object") {
      depth = Math.max(depth, level);
      for (const [key, inner] of Object.entries(node)) {
        if (unstorable(key)) return { unstorable: true, depth };
        stack.push([inner, level + 1]);
      }
    }
  }
  return { unstorable: false, depth };
}

/**
 * What the server reads of a body, modelled on the documented behaviour of a JSON body parser:
 * only `application/json` (UTF-8) is read, an empty body is `{}`, the top level must be an
 * object or an array, and text PostgreSQL cannot store is refused; anything else it cannot read
 * is refused (validation-failed), and so is a body over the operation's limit.
 */
function readBody(choice: BodyChoice, limit: number): BodyRead {
  if (choice.bytes === undefined) return { refused: false, value: undefined, mayRefuse: false };
  if (choice.headers["content-encoding"]) return { refused: true };
  const type = choice.headers["content-type"];
  const [mediaType = "", ...parameters] = (type ?? "").split(";");
  if (mediaType.trim().toLowerCase() !== "application/json") {
    return { refused: false, value: undefined, mayRefuse: false };
  }
  const charset = parameters
    .map((parameter) => parameter.trim().toLowerCase())
    .find((parameter) => parameter.startsWith("charset="))
    ?.slice("charset=".length);
  if (charset !== undefined && !charset.startsWith("utf-")) return { refused: true };
  const bytes = Buffer.from(choice.bytes);
  if (bytes.length > limit) return { refused: true };
  const text = new TextDecoder().decode(bytes);
  if (text === "") return { refused: false, value: {}, mayRefuse: false };
  const first = /^[ \t\n\r]*(.)/s.exec(text)?.[1];
  if (first !== "{" && first !== "[") return { refused: true };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { refused: true };
  }
  const { unstorable, depth } = inspect(value);
  if (unstorable) return { refused: true };
  return { refused: false, value, mayRefuse: depth > SENSIBLE_DEPTH };
}

/** The faults of a body read with `schema`, and its parsed value when it is valid. */
function bodyFaults<S extends z.ZodType>(
  read: BodyRead,
  schema: S,
  missing: "undefined" | "empty-object" = "undefined",
): { faults: Outcome[]; maybe: Outcome[]; valid?: z.output<S> } {
  if (read.refused) return { faults: ["validation-failed"], maybe: [] };
  const value = read.value === undefined && missing === "empty-object" ? {} : read.value;
  const parsed = schema.safeParse(value);
  const maybe: Outcome[] = read.mayRefuse ? ["validation-failed"] : [];
  if (!parsed.success) return { faults: ["validation-failed"], maybe };
  return { faults: [], maybe, valid: parsed.data };
}

/* ---------------------------------------------------------------------------------------- */
/* Generators: query strings and path segments                                               */
/* ---------------------------------------------------------------------------------------- */

type QueryPart = readonly [key: string, value: string | undefined];

const toQuery = (parts: readonly QueryPart[]) =>
  parts.map(([key, value]) => (value === undefined ? key : `${key}=${value}`)).join("&");

const junkKey = fc.oneof(
  fc.constantFrom(
    "domain",
    "price",
    "product",
    "categories",
    "categories[]",
    "hash",
    "limit",
    "cursor",
    "__proto__",
    "constructor",
    "toString",
    "a[]",
    "a[b]",
    "",
    "%ZZ",
  ),
  anyText.map(percentEncode),
);

/** Parameters nobody asked for, some named like the real ones. */
const junkParts = fc.array(fc.tuple(junkKey, fc.option(rawValue, { nil: undefined })), {
  maxLength: 3,
});

/** A parameter absent, once, twice, or as `name[]`. */
function param(name: string, value: fc.Arbitrary<string>): fc.Arbitrary<QueryPart[]> {
  return fc.oneof(
    { weight: 6, arbitrary: value.map((v): QueryPart[] => [[name, v]]) },
    { weight: 1, arbitrary: fc.constant<QueryPart[]>([]) },
    { weight: 1, arbitrary: fc.constant<QueryPart[]>([[name, undefined]]) },
    {
      weight: 1,
      arbitrary: fc.tuple(value, value).map(([a, b]): QueryPart[] => [
        [name, a],
        [name, b],
      ]),
    },
    { weight: 1, arbitrary: value.map((v): QueryPart[] => [[`${name}[]`, v]]) },
  );
}

/** Query parts in any order. */
function shuffled(parts: fc.Arbitrary<QueryPart[]>[]): fc.Arbitrary<QueryPart[]> {
  return fc
    .tuple(...parts, junkParts)
    .map((groups) => groups.flat())
    .chain((all) => fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }));
}

/** A domain: a store's (as written, or with other case and slashes), unknown, or malformed. */
function domainArb(): fc.Arbitrary<string> {
  const known = fc.constantFrom(shop.domain, other.domain);
  return fc.oneof(
    { weight: 4, arbitrary: known.map(percentEncode) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(known, fc.constantFrom("upper", "slash", "slashes", "spaces"))
        .map(([domain, how]) =>
          percentEncode(
            how === "upper"
              ? domain.toUpperCase()
              : how === "slash"
                ? `${domain}/`
                : how === "slashes"
                  ? `${domain}///`
                  : ` ${domain} `,
          ),
        ),
    },
    {
      weight: 2,
      arbitrary: fc.domain().map((host) => percentEncode(`https://${host}`)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(known, fc.nat(), fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.constant(0x7f)))
        .map(([domain, position, code]) => {
          const cut = position % (domain.length + 1);
          return percentEncode(
            `${domain.slice(0, cut)}${String.fromCharCode(code)}${domain.slice(cut)}`,
          );
        }),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 5 }).map(percentEncode) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 248, max: 400 })
        .map((length) => percentEncode(`https://${"a".repeat(length)}`)),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom("https://шоп.example", "https://bad-input.example%00"),
    },
    { weight: 2, arbitrary: rawValue },
  );
}

/** A path segment as sent; never one the URL parser would remove (`.`, `..`) or split. */
function segmentArb(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc
    .oneof(
      { weight: 4, arbitrary: valid },
      { weight: 1, arbitrary: valid.map((id) => `0${id}`) },
      {
        weight: 2,
        arbitrary: fc
          .constantFrom(
            "-1",
            "1e3",
            "1.0",
            "0x10",
            "abc",
            "١٠٠١",
            " 1001",
            "1001 ",
            "+1001",
            "99999999999999999",
            "9007199254740993",
            "18446744073709551616",
            "null",
            "NaN",
            "[1001]",
            "1001,1002",
            "1001\u0000",
            "1/2",
          )
          .map(percentEncode),
      },
      { weight: 2, arbitrary: rawGarbage },
      { weight: 1, arbitrary: fc.constantFrom("1%2F2", "%2F", "1001%00", "%C0%AE", "%E2%80%AE1") },
      { weight: 2, arbitrary: anyText.map(percentEncode) },
    )
    .filter((segment) => {
      const lower = segment.toLowerCase().replace(/%2e/g, ".");
      return segment !== "" && lower !== "." && lower !== ".." && !/[/?#\\]/.test(segment);
    });
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/* ---------------------------------------------------------------------------------------- */
/* Generators: credentials                                                                   */
/* ---------------------------------------------------------------------------------------- */

interface BasicChoice {
  header: string | undefined;
  store: SeededStore | undefined;
}

function basicArb(): fc.Arbitrary<BasicChoice> {
  const refused = (header: string | undefined): BasicChoice => ({ header, store: undefined });
  const [key] = shop.keys as [string];
  const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
  return fc.oneof(
    { weight: 5, arbitrary: fc.constant({ header: basic(key), store: shop }) },
    { weight: 1, arbitrary: fc.constant({ header: basic(other.keys[0] as string), store: other }) },
    {
      weight: 1,
      arbitrary: fc.constant({ header: `basic   ${b64(`${key}:`)}`, store: shop }),
    },
    { weight: 1, arbitrary: fc.constant(refused(undefined)) },
    { weight: 1, arbitrary: fc.constant(refused(basic(revokedKey))) },
    {
      weight: 1,
      arbitrary: fc
        .string({ minLength: 1, maxLength: 10 })
        .map((password) => refused(basic(key, password))),
    },
    { weight: 1, arbitrary: fc.constant(refused(basic("", key))) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.nat(), fc.constantFrom(..."ABCxyz019-_!:")).map(([position, char]) => {
        const index = position % key.length;
        const replacement = key[index] === char ? (char === "A" ? "B" : "A") : char;
        return refused(basic(`${key.slice(0, index)}${replacement}${key.slice(index + 1)}`));
      }),
    },
    { weight: 1, arbitrary: fc.constant(refused(`Basic ${b64(key)}`)) },
    { weight: 1, arbitrary: fc.constant(refused(`Basic ${b64(`${key}::`)}`)) },
    { weight: 1, arbitrary: fc.constant(refused(`Bearer ${key}`)) },
    { weight: 1, arbitrary: fc.constant(refused(`${basic(key)}, ${basic(key)}`)) },
    { weight: 1, arbitrary: fc.constant(refused(`Basic ${b64(`${key}:`)}!`)) },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 60 })
        .map((bytes) => refused(`Basic ${Buffer.from(bytes).toString("base64")}`)),
    },
    { weight: 2, arbitrary: headerText(80).map(refused) },
    { weight: 1, arbitrary: headerText(80).map((text) => refused(`Basic ${text}`)) },
  );
}

interface HmacChoice {
  /** The externalId as sent: path segment or query value. */
  id: string;
  parts: QueryPart[];
}

/**
 * The customer credentials: half the time a right triple (a store's domain, one of its
 * customers or one it has never met, the hash of that id with one of its keys), otherwise
 * each part drawn on its own, right or wrong: wrong or revoked keys, another customer's or
 * store's hash, upper case, wrong length, not hex, repeated or missing parameters.
 */
function hmacArb(externalIdIn: "path" | "query"): fc.Arbitrary<HmacChoice> {
  const idText = (store: SeededStore) =>
    fc.constantFrom(...[...store.customers.keys(), GHOST].map(String));
  const storeChoice = fc.constantFrom(shop, shop, other);
  const hashOf = (store: SeededStore, id: string) =>
    customerHash(store.reference, store.keys[0] as string, id);
  const right = storeChoice.chain((store) =>
    fc.tuple(fc.constant(store), idText(store), fc.boolean()).map(([s, id, padded]) => {
      const sent = padded ? `00${id}` : id;
      return { store: s, id: sent, hash: hashOf(s, sent) };
    }),
  );

  type HashKind =
    | "right"
    | "other-store"
    | "revoked"
    | "other-customer"
    | "upper"
    | "short"
    | "long"
    | "not-hex"
    | "sha256"
    | "random";
  const hashKind = fc.constantFrom<HashKind>(
    "right",
    "right",
    "other-store",
    "revoked",
    "other-customer",
    "upper",
    "short",
    "long",
    "not-hex",
    "sha256",
    "random",
  );
  const wrongHash = (kind: HashKind, id: string, random: string): string => {
    const rightHash = hashOf(shop, id);
    switch (kind) {
      case "right":
        return rightHash;
      case "other-store":
        return hashOf(other, id);
      case "revoked":
        return customerHash(shop.reference, revokedKey, id);
      case "other-customer":
        return hashOf(shop, id === String(RICH) ? String(POOR) : String(RICH));
      case "upper":
        return rightHash.toUpperCase();
      case "short":
        return rightHash.slice(0, -1);
      case "long":
        return `${rightHash}0`;
      case "not-hex":
        return `${rightHash.slice(0, -1)}g`;
      case "sha256":
        return createHmac("sha256", `${shop.reference}:${shop.keys[0]}`).update(id).digest("hex");
      case "random":
        return random;
    }
  };
  const randomHex = fc
    .uint8Array({ minLength: 64, maxLength: 64 })
    .map((bytes) => Buffer.from(bytes).toString("hex"));
  const idSegment = segmentArb(fc.constantFrom(String(RICH), String(POOR), String(GHOST)));
  const broken = fc
    .tuple(
      idSegment,
      hashKind,
      randomHex,
      fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, rawValue),
    )
    .map(([segment, kind, random, garbage]) => {
      const id = decodeSegment(segment) ?? segment;
      return { segment, hash: garbage ?? percentEncode(wrongHash(kind, id, random)) };
    });

  const build = (
    segment: string,
    hash: string,
    domain: fc.Arbitrary<string>,
    /** Each parameter once, or any of them missing, repeated or as `name[]`. */
    once: boolean,
  ) => {
    const some = once
      ? (name: string, value: fc.Arbitrary<string>) => value.map((v): QueryPart[] => [[name, v]])
      : param;
    const parts = [
      some("hash", fc.constant(hash)),
      some("domain", domain),
      externalIdIn === "query"
        ? some("externalId", fc.constant(segment))
        : fc.oneof(
            { weight: 5, arbitrary: fc.constant<QueryPart[]>([]) },
            { weight: 2, arbitrary: fc.constant<QueryPart[]>([["externalId", segment]]) },
            {
              weight: 1,
              arbitrary: idSegment.map((id): QueryPart[] => [["externalId", id]]),
            },
          ),
      fc.oneof(
        fc.constant<QueryPart[]>([]),
        rawValue.map((value): QueryPart[] => [["limit", value]]),
        rawValue.map((value): QueryPart[] => [["cursor", value]]),
      ),
    ];
    return shuffled(parts).map((query) => ({ id: segment, parts: query }));
  };
  return fc.oneof(
    {
      weight: 4,
      arbitrary: right.chain(({ store, id, hash }) => {
        const domain = fc.oneof(
          { weight: 3, arbitrary: fc.constant(percentEncode(store.domain)) },
          fc.constant(percentEncode(`${store.domain.toUpperCase()}/`)),
        );
        const once = fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, fc.constant(false));
        return once.chain((each) => build(percentEncode(id), hash, domain, each));
      }),
    },
    {
      weight: 2,
      arbitrary: broken.chain(({ segment, hash }) => build(segment, hash, domainArb(), false)),
    },
  );
}

/**
 * The customer the HMAC parameters authenticate, per the spec: hex HMAC-SHA512 of the
 * externalId text keyed `<store_reference>:<API_KEY>` with an active key of the store the domain
 * names; for the path operations an `externalId` in the query must be the path's, given once.
 */
function hmacCustomer(
  idText: string | undefined,
  query: ParsedUrlQuery,
  externalIdIn: "path" | "query",
): { store: SeededStore; externalId: number } | undefined {
  if (typeof idText !== "string" || !externalIdTextSchema.safeParse(idText).success) return;
  const repeated = query["externalId"];
  if (externalIdIn === "path" && repeated !== undefined && repeated !== idText) return;
  const hash = query["hash"];
  if (typeof hash !== "string" || !/^[0-9a-f]{128}$/.test(hash)) return;
  const store = storeOfDomain(query["domain"]);
  if (!store?.keys.some((key) => customerHash(store.reference, key, idText) === hash)) return;
  return { store, externalId: Number(idText) };
}

/* ---------------------------------------------------------------------------------------- */
/* Requests of the spec's operations                                                         */
/* ---------------------------------------------------------------------------------------- */

type OperationName = keyof typeof OPERATIONS;

interface Parts {
  revision: RevisionChoice;
  path: string;
  query: QueryPart[];
  headers: Record<string, string | undefined>;
  body?: BodyChoice;
}

/** The plan of a request, its expectation computed by `judge` from what the server will read. */
function plan(
  operation: string,
  definition: OperationDefinition,
  parts: Parts,
  judge: (read: { served: ApiRevision; query: ParsedUrlQuery; body: BodyRead }) => {
    faults: Outcome[];
    maybe?: Outcome[];
  },
): Plan | undefined {
  const query = toQuery(parts.query);
  const url = new URL(`http://localhost${parts.path}${query ? `?${query}` : ""}`);
  // The URL parser would have rewritten the path (dot segments): not the request meant.
  if (url.pathname !== parts.path) return undefined;
  const search = url.search.slice(1);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries({
    ...parts.headers,
    ...parts.body?.headers,
    revision: parts.revision.header,
  })) {
    if (value !== undefined) headers[name] = value;
  }
  const base = {
    operation,
    definition,
    method: definition.method,
    path: url.pathname,
    query: search,
    headers,
    ...(parts.body?.bytes === undefined ? {} : { body: parts.body.bytes }),
    revision: parts.revision.expect,
  };
  if ("refused" in parts.revision.expect) {
    return { ...base, faults: [parts.revision.expect.refused], maybe: [] };
  }
  const body: BodyRead = parts.body
    ? readBody(parts.body, definition.maxBodyBytes ?? BODY_LIMIT)
    : { refused: false, value: undefined, mayRefuse: false };
  const verdict = judge({
    served: parts.revision.expect.served,
    query: querystring.parse(search),
    body,
  });
  return { ...base, faults: verdict.faults, maybe: verdict.maybe ?? [] };
}

/** A cursor the server issues: base64url of a positive whole number's digits, and only that. */
function issuedCursor(cursor: string): boolean {
  const id = Number(Buffer.from(cursor, "base64url").toString("utf8"));
  return (
    Number.isSafeInteger(id) && id > 0 && Buffer.from(String(id)).toString("base64url") === cursor
  );
}

/**
 * What an operation reads of a query: `categories[]=1` and `categories[0]=1` read as
 * `categories` where the operation takes a list, as it documents; elsewhere `query[]` is a key
 * the operation does not read.
 */
function readQueryWith(schema: z.ZodType, query: ParsedUrlQuery): Record<string, unknown> {
  const json = JSON.stringify(toJSONSchema(schema, { unrepresentable: "any", io: "input" }));
  return json.includes('"type":"array"') ? foldIndexedKeys(query) : { ...query };
}

/** `categories[]=1` and `categories[0]=1` read as `categories`, as the operation documents. */
function foldIndexedKeys(query: ParsedUrlQuery): Record<string, unknown> {
  const folded: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const indexed: [string, unknown][] = [];
  for (const [key, value] of Object.entries(query)) {
    const name = key.endsWith("]") ? /^([^[\]]+)\[\d*\]$/.exec(key)?.[1] : undefined;
    if (name === undefined) folded[key] = value;
    else indexed.push([name, value]);
  }
  for (const [name, value] of indexed) folded[name] = [folded[name] ?? [], value].flat();
  return folded;
}

function specPlanArb(name: OperationName, calendar: Calendar): fc.Arbitrary<Plan | undefined> {
  const definition: OperationDefinition = OPERATIONS[name];
  const revision = revisionArb(calendar);
  const junkHeaders = fc.record(
    {
      authorization: fc.oneof(
        headerText(60),
        headerText(60).map((text) => `Bearer ${text}`),
      ),
    },
    { requiredKeys: [] },
  );
  switch (name) {
    case "registerOrder":
    case "refundOrder": {
      const examples = OPERATION_EXAMPLES[name].request;
      const templates = [examples["2026-01-01"], examples["2026-06-18"]];
      return fc
        .record({
          revision,
          auth: basicArb(),
          body: bodyArb(templates),
          query: junkParts,
        })
        .map(({ revision: r, auth, body, query }) =>
          plan(
            name,
            definition,
            {
              revision: r,
              path: definition.path,
              query,
              headers: { authorization: auth.header },
              body,
            },
            ({ served, body: read }) => {
              const schemas = orderSchemasFor(served);
              const checked = bodyFaults(
                read,
                name === "registerOrder" ? schemas.register : schemas.refund,
              );
              const faults: Outcome[] = [...checked.faults];
              if (!auth.store) faults.push("unauthorized");
              // A good order of a good store is registered: not this suite's to send.
              return { faults, maybe: checked.maybe };
            },
          ),
        );
    }

    case "recordActivity": {
      const templates = [OPERATION_EXAMPLES.recordActivity.request];
      return fc
        .record({ revision, auth: basicArb(), body: bodyArb(templates), query: junkParts })
        .map(({ revision: r, auth, body, query }) =>
          plan(
            name,
            definition,
            {
              revision: r,
              path: definition.path,
              query,
              headers: { authorization: auth.header },
              body,
            },
            ({ body: read }) => {
              const checked = bodyFaults(read, recordActivityRequestSchema);
              const faults: Outcome[] = [...checked.faults];
              if (!auth.store) faults.push("unauthorized");
              // A good activity of a good store is credited: not this suite's to send.
              return { faults, maybe: checked.maybe };
            },
          ),
        );
    }

    case "calculateProductPoints": {
      const price = fc.oneof(
        {
          weight: 3,
          arbitrary: fc.constantFrom("12.5", "1", "999", " 7 ", "1000000000").map(percentEncode),
        },
        fc
          .constantFrom(
            "0",
            "0.99",
            "-5",
            "abc",
            "",
            "1e3",
            "NaN",
            "Infinity",
            "1,5",
            "0x10",
            "١٢",
            "1.",
            ".5",
            "1000000001",
            "9".repeat(400),
          )
          .map(percentEncode),
        rawValue,
      );
      const product = fc.oneof(
        fc.constantFrom("10", "11", "0"),
        fc.constantFrom("-1", "1.5", "abc"),
      );
      const categories = fc.oneof(
        fc.constantFrom("1,2", "3", "", "1,,2"),
        fc.constantFrom("a", "1,x", "-1", "1.5"),
      );
      return fc
        .record({
          revision,
          query: shuffled([
            param("price", price),
            param("domain", domainArb()),
            fc.option(param("product", product), { nil: [] }),
            fc.option(param("categories", categories), { nil: [] }),
          ]),
          headers: junkHeaders,
        })
        .map(({ revision: r, query, headers }) =>
          plan(
            name,
            definition,
            { revision: r, path: definition.path, query, headers },
            ({ query: q }) => {
              const parsed = calculatePointsQuerySchema.safeParse(foldIndexedKeys(q));
              if (!parsed.success) return { faults: ["validation-failed"] };
              return { faults: storeOfDomain(parsed.data.domain) ? [] : ["not-found"] };
            },
          ),
        );
    }

    case "calculateManyProductPoints": {
      const item = fc.oneof(
        {
          weight: 3,
          arbitrary: fc.constantFrom("10:12.5", ":1", "0:999:1|2", "11:7:3", " 10 : 20 "),
        },
        fc.constantFrom(
          "10",
          "10:0.99",
          "x:12",
          "10:12:a",
          "10:12:1:2",
          ":",
          "10:1e3",
          "10:12:1,2",
          "10:1000000001",
        ),
      );
      const items = fc.oneof(
        {
          weight: 3,
          arbitrary: fc
            .array(item, { minLength: 1, maxLength: 4 })
            .map((list) => percentEncode(list.join(","))),
        },
        fc
          .constantFrom("", ",", Array.from({ length: 101 }, () => "1:1").join(","))
          .map(percentEncode),
        rawValue,
      );
      return fc
        .record({
          revision,
          query: shuffled([param("items", items), param("domain", domainArb())]),
          headers: junkHeaders,
        })
        .map(({ revision: r, query, headers }) =>
          plan(
            name,
            definition,
            { revision: r, path: definition.path, query, headers },
            ({ query: q }) => {
              const parsed = calculateManyPointsQuerySchema.safeParse(foldIndexedKeys(q));
              if (!parsed.success) return { faults: ["validation-failed"] };
              return { faults: storeOfDomain(parsed.data.domain) ? [] : ["not-found"] };
            },
          ),
        );
    }

    case "listRewards":
    case "getCartWidget":
    case "getProductPointsWidget":
    case "getProgramPresentationWidget":
    case "getLauncherWidget":
      return fc
        .record({ revision, query: shuffled([param("domain", domainArb())]), headers: junkHeaders })
        .map(({ revision: r, query, headers }) =>
          plan(
            name,
            definition,
            { revision: r, path: definition.path, query, headers },
            ({ query: q }) => ({ faults: storeOfDomain(q["domain"]) ? [] : ["not-found"] }),
          ),
        );

    case "getCustomerHistory":
    case "listCustomerCodes":
      return fc
        .record({ revision, hmac: hmacArb("path"), headers: junkHeaders })
        .map(({ revision: r, hmac, headers }) =>
          plan(
            name,
            definition,
            {
              revision: r,
              path: definition.path.replace("{externalId}", hmac.id),
              query: hmac.parts,
              headers,
            },
            ({ query: q }) => {
              const customer = hmacCustomer(decodeSegment(hmac.id), q, "path");
              if (!customer) return { faults: ["unauthorized"] };
              return { faults: [] };
            },
          ),
        );

    case "claimReward": {
      // The rewards the store has (the active one thrice), another store's, and none.
      const [active, inactive] = [...shop.rewards.keys()] as [number, number];
      const rewardIds = [active, active, active, inactive, ...other.rewards.keys(), 999_999, 0];
      const templates = [
        ...rewardIds.map((rewardId) => ({ rewardId })),
        OPERATION_EXAMPLES.claimReward.request,
      ];
      return fc
        .record({ revision, hmac: hmacArb("path"), body: bodyArb(templates, 16) })
        .map(({ revision: r, hmac, body }) =>
          plan(
            name,
            definition,
            { revision: r, path: `/reward/claim/${hmac.id}`, query: hmac.parts, headers: {}, body },
            ({ query: q, body: read }) => {
              const checked = bodyFaults(read, claimRewardRequestSchema);
              const faults: Outcome[] = [...checked.faults];
              const maybe: Outcome[] = [...checked.maybe];
              const customer = hmacCustomer(decodeSegment(hmac.id), q, "path");
              if (!customer) faults.push("unauthorized");
              if (customer && checked.valid) {
                const owner = customer.store.customers.get(customer.externalId);
                const reward = customer.store.rewards.get(checked.valid.rewardId);
                if (!owner) faults.push("not-found");
                if (!reward) faults.push("validation-failed");
                if (reward && !reward.active) faults.push("claim-refusal");
                if (reward?.active && owner && owner.points < reward.cost) {
                  faults.push("claim-refusal");
                }
              }
              return { faults, maybe };
            },
          ),
        );
    }

    case "createReferral": {
      const emails = [
        "rich@bad-input.example",
        "poor@bad-input.example",
        "pending@bad-input.example",
        "completed@bad-input.example",
        "other@example.org",
      ];
      const templates = [
        ...emails.map((email) => ({ email })),
        ...emails.map((email) => ({
          email: email.toUpperCase(),
          firstName: "Sam",
          language: "fr",
        })),
        OPERATION_EXAMPLES.createReferral.request,
      ];
      return fc
        .record({ revision, hmac: hmacArb("query"), body: bodyArb(templates, 16) })
        .map(({ revision: r, hmac, body }) =>
          plan(
            name,
            definition,
            { revision: r, path: definition.path, query: hmac.parts, headers: {}, body },
            ({ query: q, body: read }) => {
              const checked = bodyFaults(read, createReferralRequestSchema);
              const faults: Outcome[] = [...checked.faults];
              const idText = q["externalId"];
              const referrer = hmacCustomer(
                typeof idText === "string" ? idText : undefined,
                q,
                "query",
              );
              if (!referrer) faults.push("unauthorized");
              if (referrer && checked.valid) {
                const { store } = referrer;
                const email = checked.valid.email.toLowerCase();
                const owner = [...store.customers].find(([, c]) => c.email === email)?.[0];
                if (!store.referralProgram) faults.push("validation-failed");
                if (owner !== undefined) {
                  faults.push(
                    owner === referrer.externalId
                      ? "validation-failed"
                      : "referral-customer-already-exists",
                  );
                }
                if (store.pending.has(email)) faults.push("referral-already-pending");
                if (store.completed.has(email)) faults.push("referral-already-completed");
              }
              return { faults, maybe: checked.maybe };
            },
          ),
        );
    }

    case "getRefereeCode":
      return fc
        .record({
          revision,
          body: bodyArb([
            OPERATION_EXAMPLES.getRefereeCode.request,
            { referralHash: "nQ3vX8kR2mT7wY1pL5sD9fH4jB6cZ0aE8gU2iO7rW3e" },
          ]),
          query: junkParts,
        })
        .map(({ revision: r, body, query }) =>
          plan(
            name,
            definition,
            { revision: r, path: definition.path, query, headers: {}, body },
            ({ body: read }) => {
              const checked = bodyFaults(read, refereeCodeRequestSchema);
              // No referral has a hash drawn here.
              return {
                faults: checked.valid ? ["not-found"] : checked.faults,
                maybe: checked.maybe,
              };
            },
          ),
        );
  }
}

/* ---------------------------------------------------------------------------------------- */
/* Requests of the back-office                                                               */
/* ---------------------------------------------------------------------------------------- */

type AdminName = keyof typeof ADMIN_OPERATIONS;

interface TokenChoice {
  header: string | undefined;
  /** The token's store (null: the whole service); undefined when refused. */
  storeId: number | null | undefined;
}

function tokenArb(): fc.Arbitrary<TokenChoice> {
  const refused = (header: string | undefined): TokenChoice => ({ header, storeId: undefined });
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const forged = `${encode({ alg: "HS256", typ: "JWT" })}.${encode({
    iss: "loyalty",
    aud: "loyalty-admin",
    sub: "1",
    iat: Math.floor(TODAY.getTime() / 1000),
    exp: 4_000_000_000,
  })}.${"A".repeat(43)}`;
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc.constant({ header: `Bearer ${serviceAdmin.token}`, storeId: null }),
    },
    {
      weight: 2,
      arbitrary: fc.constant({ header: `Bearer ${storeAdmin.token}`, storeId: other.id }),
    },
    { weight: 1, arbitrary: fc.constant(refused(undefined)) },
    { weight: 1, arbitrary: fc.constant(refused(`Bearer ${forged}`)) },
    { weight: 1, arbitrary: fc.constant(refused(`Bearer ${wrongKeyToken}`)) },
    { weight: 1, arbitrary: fc.constant(refused(`Bearer ${serviceAdmin.token}x`)) },
    { weight: 1, arbitrary: fc.constant(refused(`Bearer ${serviceAdmin.token} extra`)) },
    { weight: 1, arbitrary: fc.constant(refused(`Basic ${serviceAdmin.token}`)) },
    { weight: 1, arbitrary: fc.constant(refused(basic(shop.keys[0] as string))) },
    { weight: 2, arbitrary: headerText(80).map(refused) },
    { weight: 1, arbitrary: headerText(80).map((text) => refused(`Bearer ${text}`)) },
  );
}

let wrongKeyToken = "";

/** Path parameters of the back-office: a store's id, ids no row has, or malformed ids. */
function adminSegmentArb(parameter: string): fc.Arbitrary<string> {
  const unknown =
    parameter === "keyId"
      ? fc.constantFrom("lk_zzzzzzzzzz", "lk_0000000000", "lk_ZZZ", "lk_")
      : fc.constantFrom("999999", "123456789", "9007199254740991");
  const valid =
    parameter === "storeId"
      ? fc.oneof(
          { weight: 4, arbitrary: fc.constant(String(shop.id)) },
          { weight: 1, arbitrary: fc.constant(String(other.id)) },
          { weight: 1, arbitrary: unknown },
        )
      : unknown;
  return segmentArb(valid);
}

/**
 * The query of a back-office operation: each of its parameters with its documented example or
 * anything at all (absent, repeated, as `name[]`), and junk parameters, in any order.
 */
function adminQueryArb(schema: z.ZodType): fc.Arbitrary<QueryPart[]> {
  const names = Object.keys((schema as unknown as { shape: Record<string, unknown> }).shape);
  return shuffled(
    names.map((name) => {
      const example = PARAMETER_EXAMPLES[name];
      const valid = fc.constant(
        percentEncode(Array.isArray(example) ? example.join(",") : String(example ?? "")),
      );
      return param(name, fc.oneof({ weight: 3, arbitrary: valid }, rawValue));
    }),
  );
}

function adminPlanArb(name: AdminName, calendar: Calendar): fc.Arbitrary<Plan | undefined> {
  const definition: OperationDefinition = ADMIN_OPERATIONS[name];
  const parameters = [...definition.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
  const examples = OPERATION_EXAMPLES[name] as { request?: Json };
  const bodySchema = definition.body as z.ZodType | undefined;
  return fc
    .record({
      revision: revisionArb(calendar),
      token:
        name === "createAdminToken"
          ? fc.constant({ header: undefined, storeId: null })
          : tokenArb(),
      segments: fc.tuple(...parameters.map(adminSegmentArb)),
      query: definition.query ? adminQueryArb(definition.query) : fc.constant<QueryPart[]>([]),
      body: bodySchema ? bodyArb([examples.request ?? {}]) : fc.constant(undefined),
    })
    .map(({ revision, token, segments, query, body }) => {
      let path = definition.path;
      parameters.forEach((parameter, index) => {
        path = path.replace(`{${parameter}}`, segments[index] as string);
      });
      return plan(
        name,
        definition,
        {
          revision,
          path,
          query,
          headers: { authorization: token.header },
          ...(body ? { body } : {}),
        },
        ({ query: readQuery, body: read }) => {
          if (name === "createAdminToken") {
            const checked = bodyFaults(read, bodySchema as z.ZodType);
            // Nobody has the credentials drawn here.
            return {
              faults: checked.faults.length ? checked.faults : ["unauthorized"],
              maybe: checked.maybe,
            };
          }
          const faults: Outcome[] = [];
          const maybe: Outcome[] = [];
          const decoded = segments.map(decodeSegment);
          // A path parameter the router cannot decode, or the schema refuses, is not-found.
          const params = Object.fromEntries(parameters.map((p, i) => [p, decoded[i]]));
          if (decoded.includes(undefined) || !definition.pathParams?.safeParse(params).success) {
            if (definition.pathParams) faults.push("not-found");
          }
          if (token.storeId === undefined) {
            faults.push("unauthorized");
            return { faults };
          }
          if (definition.scope === "service" && token.storeId !== null) faults.push("forbidden");
          const storeId = idTextSchema.safeParse(params["storeId"]);
          if (storeId.success) {
            if (token.storeId !== null && token.storeId !== storeId.data) faults.push("forbidden");
            const store = stores().find((s) => s.id === storeId.data);
            if (!store) faults.push("not-found");
            if (name === "getReferralProgram" && store && !store.referralProgram) {
              faults.push("not-found");
            }
          }
          // Every other id drawn names no row.
          if (parameters.length > 1) faults.push("not-found");
          if (definition.query) {
            const parsed = definition.query.safeParse(readQueryWith(definition.query, readQuery));
            const cursor = parsed.success
              ? (parsed.data as { cursor?: unknown }).cursor
              : undefined;
            // A back-office list refuses a cursor it did not issue (docs/api.md, paging).
            if (!parsed.success || (typeof cursor === "string" && !issuedCursor(cursor))) {
              faults.push("validation-failed");
            }
          }
          if (bodySchema) {
            const checked = bodyFaults(read, bodySchema, "empty-object");
            faults.push(...checked.faults);
            maybe.push(...checked.maybe);
          }
          return { faults, maybe };
        },
      );
    });
}

/* ---------------------------------------------------------------------------------------- */
/* Sending and judging                                                                       */
/* ---------------------------------------------------------------------------------------- */

function describePlan(plan: Plan): string {
  const body =
    plan.body === undefined
      ? ""
      : typeof plan.body === "string"
        ? plan.body
        : `<${plan.body.length} bytes> ${Buffer.from(plan.body).toString("latin1")}`;
  return [
    `${plan.method} ${plan.path}${plan.query ? `?${plan.query}` : ""}`.slice(0, 600),
    JSON.stringify(plan.headers).slice(0, 600),
    body.length > 600 ? `${body.slice(0, 600)}… (${body.length})` : body,
    `expected: ${JSON.stringify(plan.revision)} faults=${plan.faults.join(",")} maybe=${plan.maybe.join(",")}`,
  ].join("\n  ");
}

/** Prints a counterexample readably: a megabyte body in full helps nobody. */
function printable(arb: fc.Arbitrary<Plan | undefined>): fc.Arbitrary<Plan | undefined> {
  return arb.map((value) =>
    value === undefined
      ? value
      : Object.assign(value, { [fc.toStringMethod]: () => describePlan(value) }),
  );
}

function send(plan: Plan): Promise<Response> {
  return fetch(`${app.baseUrl}${plan.path}${plan.query ? `?${plan.query}` : ""}`, {
    method: plan.method,
    headers: plan.headers,
    redirect: "manual",
    ...(plan.body === undefined ? {} : { body: plan.body }),
  });
}

const statusOf = (outcome: Outcome) =>
  outcome === "claim-refusal" ? 404 : ERROR_REASONS[outcome].status;

/**
 * The answer to a bad request: never a 500, never a success while the request has a fault;
 * an error of the operation's catalogue naming one of the request's faults, in its revision's
 * format (a problem object from 2026-08-26, the legacy body before, a problem object when the
 * revision header itself is refused), never kept by a cache.
 */
async function expectRefusal(plan: Plan, response: Response) {
  const { definition } = plan;
  const text = await response.text();
  const where = `${describePlan(plan)}\n  answered ${response.status} ${response.headers.get("content-type")} ${text.slice(0, 400)}`;
  expect(response.status, where).toBeLessThan(500);
  const contentType = response.headers.get("content-type") ?? "";
  if ("refused" in plan.revision) {
    expect(response.status, where).toBe(400);
    expect(contentType, where).toMatch(/^application\/problem\+json/);
    const problem = problemSchema.parse(JSON.parse(text));
    expect(problem.type, where).toBe(`${problemBase}/${plan.revision.refused}`);
    expect(problem.status, where).toBe(400);
    expect(response.headers.get("revision"), where).toBeNull();
    expect(response.headers.get("cache-control"), where).toBe("no-store");
    return;
  }
  const { served, deprecated } = plan.revision;
  expect(response.headers.get("revision"), where).toBe(served);
  expect(response.headers.get("deprecation") !== null, where).toBe(deprecated);
  expect(response.headers.get("sunset") !== null, where).toBe(deprecated);
  if (response.status < 400) {
    expect(plan.faults, `succeeded despite its faults: ${where}`).toEqual([]);
    expect(response.status, where).toBe(definition.successStatus);
    return;
  }
  expect(response.headers.get("cache-control"), where).toBe("no-store");
  const possible = [...plan.faults, ...plan.maybe];
  const allowed: Outcome[] = [
    ...definition.errors,
    ...COMMON_ERROR_REASONS,
    ...(definition.refusal ? (["claim-refusal"] as const) : []),
  ];
  const body = JSON.parse(text) as Record<string, unknown>;
  let outcomes: Outcome[];
  if (definition.refusal && response.status === 404 && "code" in body) {
    expect(contentType, where).toMatch(/^application\/json/);
    expect(claimRefusalSchema.safeParse(body).success, where).toBe(true);
    outcomes = ["claim-refusal"];
  } else if (usesProblemDetails(served)) {
    expect(contentType, where).toMatch(/^application\/problem\+json/);
    const problem = problemSchema.parse(body);
    const reason = reasonFromProblemType(problem.type);
    expect(reason, where).toBeDefined();
    expect(problem.type, where).toBe(`${problemBase}/${reason}`);
    expect(problem.status, where).toBe(response.status);
    expect(ERROR_REASONS[reason as ErrorReason].status, where).toBe(response.status);
    expect(problem.instance, where).toBe(plan.path);
    expect(problem.requestId, where).toBe(response.headers.get("x-request-id"));
    outcomes = [reason as ErrorReason];
  } else {
    expect(contentType, where).toMatch(/^application\/json/);
    expect(Object.keys(body).sort(), where).toEqual(["error", "message", "statusCode"]);
    const legacy = legacyErrorSchema.parse(body);
    expect(legacy.statusCode, where).toBe(response.status);
    expect(legacy.error, where).toBe(STATUS_CODES[response.status]);
    // The legacy body names no reason: its status must be one a fault of the request has.
    outcomes = possible.filter((outcome) => statusOf(outcome) === response.status);
  }
  expect(
    outcomes.some((outcome) => allowed.includes(outcome) && possible.includes(outcome)),
    `${where}\n  answered ${outcomes.join(",") || "a status"} not among the request's faults or the operation's errors`,
  ).toBe(true);
}

async function expectNothingWritten(before: DatabaseSnapshot, plan?: Plan): Promise<void> {
  const after = await snapshotDatabase(app.context.pool);
  expect(after, plan ? `written by ${describePlan(plan)}` : "written").toEqual(before);
}

/** Sends the plans, judges each answer, and checks after each that nothing was written. */
async function check(arb: fc.Arbitrary<Plan | undefined>, numRuns: number): Promise<void> {
  const before = await snapshotDatabase(app.context.pool);
  await fc.assert(
    fc.asyncProperty(printable(arb), async (plan) => {
      fc.pre(plan !== undefined);
      // A request without a fault would be a good one: only reads may be sent.
      fc.pre(plan.faults.length > 0 || plan.definition.method === "GET");
      const response = await send(plan);
      await expectRefusal(plan, response);
      await expectNothingWritten(before, plan);
    }),
    { numRuns },
  );
  await expectNothingWritten(before);
}

/* ---------------------------------------------------------------------------------------- */
/* The properties                                                                            */
/* ---------------------------------------------------------------------------------------- */

describe("bad input to the spec's operations", () => {
  it.each(Object.keys(OPERATIONS) as OperationName[])(
    "%s: no 500, the revision's error format with a right reason, nothing written",
    async (name) => {
      const runs =
        name === "claimReward" || name === "createReferral" ? RUNS_WITH_STORE_REFUSALS : RUNS;
      await check(specPlanArb(name, CALENDARS.today), runs);
    },
    TIMEOUT,
  );

  it(
    "retired and deprecated revisions: unknown-api-revision, or served with Deprecation and Sunset",
    async () => {
      app.setNow(LATER);
      try {
        const names = Object.keys(OPERATIONS) as OperationName[];
        await check(
          fc.constantFrom(...names).chain((name) => specPlanArb(name, CALENDARS.later)),
          RUNS,
        );
      } finally {
        app.setNow(TODAY);
      }
    },
    TIMEOUT,
  );
});

describe("bad input to the back-office", () => {
  beforeAll(async () => {
    wrongKeyToken = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer("loyalty")
      .setAudience("loyalty-admin")
      .setSubject("1")
      .setIssuedAt()
      .setExpirationTime("1h")
      .sign(new Uint8Array(32).fill(7));
  });

  it.each(Object.keys(ADMIN_OPERATIONS) as AdminName[])(
    "%s: no 500, the revision's error format with a right reason, nothing written",
    async (name) => {
      await check(adminPlanArb(name, CALENDARS.today), ADMIN_RUNS);
    },
    TIMEOUT,
  );
});

/* ---------------------------------------------------------------------------------------- */
/* What the generated inputs found, as examples                                              */
/* ---------------------------------------------------------------------------------------- */

describe("regressions found by the generated inputs", () => {
  const LATEST = { revision: "2026-08-26" };

  async function problemOf(response: Response) {
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    return problemSchema.parse(await response.json());
  }

  const claimQuery = () =>
    new URLSearchParams({
      domain: shop.domain,
      hash: customerHash(shop.reference, shop.keys[0] as string, String(RICH)),
    }).toString();

  it("refuses a body nested thousands of times as validation-failed, not a 500", async () => {
    const before = await snapshotDatabase(app.context.pool);
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const register = await fetch(`${app.baseUrl}/api/order/register`, {
      method: "POST",
      headers: {
        ...LATEST,
        "content-type": "application/json",
        authorization: basic(shop.keys[0] as string),
      },
      body: deep,
    });
    expect(register.status).toBe(400);
    const problem = await problemOf(register);
    expect(problem.type).toBe(`${problemBase}/validation-failed`);
    expect(problem.errors).toEqual([expect.objectContaining({ pointer: "", code: "too_deep" })]);

    // With an Idempotency-Key too, whose fingerprint reads the whole body: as deep as a claim's
    // limit of 1 KiB allows.
    const claim = await fetch(`${app.baseUrl}/reward/claim/${RICH}?${claimQuery()}`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": "deep-1" },
      body: `{"rewardId": 1, "deep": ${'{"a":'.repeat(150)}1${"}".repeat(150)}}`,
    });
    expect(claim.status).toBe(400);
    expect(await claim.json()).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: "The request body nests arrays and objects deeper than 64 levels.",
    });
    expect(await snapshotDatabase(app.context.pool)).toEqual(before);
  });

  it("reads a body nested as deep as the limit, and refuses one level more", async () => {
    const ask = (depth: number) =>
      fetch(`${app.baseUrl}/reward/referral/get-referee-code`, {
        method: "POST",
        headers: { ...LATEST, "content-type": "application/json" },
        // The root object is level 0, its member's arrays levels 1 to `depth`.
        body: `{"referralHash": "unknown", "deep": ${"[".repeat(depth)}${"]".repeat(depth)}}`,
      });
    expect((await problemOf(await ask(63))).type).toBe(`${problemBase}/not-found`);
    expect((await problemOf(await ask(64))).type).toBe(`${problemBase}/validation-failed`);
  });

  it.each(["gzip", "deflate", "br"])(
    "refuses a body that does not decode as its Content-Encoding (%s) as validation-failed",
    async (encoding) => {
      const response = await fetch(`${app.baseUrl}/api/order/register`, {
        method: "POST",
        headers: {
          ...LATEST,
          "content-type": "application/json",
          "content-encoding": encoding,
          authorization: basic(shop.keys[0] as string),
        },
        body: '{"externalId": 1}',
      });
      expect(response.status).toBe(400);
      const problem = await problemOf(response);
      expect(problem.type).toBe(`${problemBase}/validation-failed`);
      expect(problem.errors).toEqual([expect.objectContaining({ code: "invalid_encoding" })]);
      // Before 2026-08-26 as well, in its format.
      const legacy = await fetch(`${app.baseUrl}/admin/token`, {
        method: "POST",
        headers: { "content-type": "application/json", "content-encoding": encoding },
        body: "not compressed",
      });
      expect(legacy.status).toBe(400);
      expect(await legacy.json()).toEqual({
        statusCode: 400,
        error: "Bad Request",
        message: "The request body does not decode as its Content-Encoding says.",
      });
    },
  );

  it("answers a customer path parameter with broken percent-encoding 401, as any malformed one", async () => {
    const history = await fetch(`${app.baseUrl}/point/user-history/%E0%A4%A?${claimQuery()}`, {
      headers: LATEST,
    });
    expect(history.status).toBe(401);
    expect((await problemOf(history)).type).toBe(`${problemBase}/unauthorized`);

    const legacy = await fetch(`${app.baseUrl}/point/user-history/%?${claimQuery()}`);
    expect(legacy.status).toBe(401);
    expect(await legacy.json()).toMatchObject({ statusCode: 401, error: "Unauthorized" });

    const claim = await fetch(`${app.baseUrl}/reward/claim/%ZZ?${claimQuery()}`, {
      method: "POST",
      headers: { ...LATEST, "content-type": "application/json" },
      body: JSON.stringify({ rewardId: 1 }),
    });
    expect(claim.status).toBe(401);
    expect((await problemOf(claim)).type).toBe(`${problemBase}/unauthorized`);
  });

  it("answers a back-office path parameter with broken percent-encoding 404, as any malformed id", async () => {
    for (const [method, path] of [
      ["GET", "/admin/stores/%ZZ"],
      ["GET", `/admin/stores/${shop.id}/customers/%E0%A4%A`],
      ["DELETE", `/admin/stores/${shop.id}/rules/%`],
    ] as const) {
      const response = await serviceAdmin.request(method, path);
      expect(response.status, path).toBe(404);
      expect((await problemOf(response)).type, path).toBe(`${problemBase}/not-found`);
    }
  });
});
