import {
  OPERATIONS,
  type ApiRevision,
  type OperationDefinition,
  type RevisionedSchema,
} from "@loyalty/shared-types";
import type { IRouter, NextFunction, Request, RequestHandler, Response } from "express";
import type { Logger } from "pino";
import { toJSONSchema, type z } from "zod";
import { basicAuth } from "../auth/basic.middleware.js";
import { bearerAuth } from "../auth/bearer.middleware.js";
import { hmacAuth } from "../auth/hmac.middleware.js";
import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import type { AdminPrincipal } from "../modules/admin/admin-auth.service.js";
import type { StoreRow } from "../modules/stores/stores.repository.js";
import { requestTimer } from "../metrics/metrics.js";
import type { Services } from "../runtime.js";
import { operationBody } from "./body.js";
import { corsFor, preflightFor } from "./cors.js";
import { honoursIdempotencyKey, idempotentRequests } from "./idempotency.middleware.js";
import { httpLogger } from "./logger.js";
import { JsonText, Reply, type OperationRoute } from "./operation.js";
import { expressPath } from "./operation-route.js";
import type { Authenticator } from "./rate-limit.middleware.js";
import { revisionResolver } from "./revision.js";
import { foldIndexedKeys, parseRequest, toValidationIssues } from "./validate.js";

export interface MountDependencies {
  config: Config;
  logger: Logger;
  clock: Clock;
  services: Pick<
    Services,
    "rateLimits" | "apiKeys" | "adminAuth" | "stores" | "idempotency" | "changes"
  >;
}

/** The schema of a request or response part for a revision: the last entry at or before it. */
export function schemaForRevision(
  schema: RevisionedSchema | undefined,
  revision: ApiRevision,
): z.ZodType | undefined {
  if (schema === undefined || "safeParse" in schema) return schema;
  let chosen: z.ZodType | undefined;
  for (const [since, each] of Object.entries(schema)) if (since <= revision) chosen = each;
  return chosen;
}

/** The request body's schema for a revision, as the registry gives it. */
function bodySchema(operation: OperationDefinition, revision: ApiRevision): z.ZodType | undefined {
  return operation.bodyFor?.(revision) ?? schemaForRevision(operation.body, revision);
}

/**
 * What a malformed part of the request is answered with, within the operation's catalogue: the
 * customer operations refuse the credentials (the history may answer nothing else), the
 * back-office names no such resource, the storefront reads know no such store.
 */
export function malformedReason(
  operation: OperationDefinition | undefined,
  part: "path" | "query",
): "validation-failed" | "not-found" | "unauthorized" {
  if (operation?.auth === "hmac") return "unauthorized";
  if (operation?.auth === "bearer") return part === "path" ? "not-found" : "validation-failed";
  if (operation && part === "query" && !operation.errors.includes("validation-failed")) {
    return "not-found";
  }
  return "validation-failed";
}

function authenticatorFor(
  operation: OperationDefinition,
  services: MountDependencies["services"],
): Authenticator | undefined {
  switch (operation.auth) {
    case "basic":
      return basicAuth(services.apiKeys);
    case "hmac":
      return hmacAuth(services.apiKeys, operation.pathParams ? "path" : "query");
    case "bearer":
      return bearerAuth(services.adminAuth, operation.scope ?? "store");
    case "public":
      return undefined;
  }
}

/** How many distinct queries each storefront read remembers the parse of. */
export const MAX_REMEMBERED_QUERIES = 1000;

/** The storefront reads: public GETs, on every product page. They write no access log line. */
const isStorefrontRead = (operation: OperationDefinition) =>
  operation.auth === "public" && operation.method === "GET";

/** The operations of the API (the spec's), as opposed to the back-office's. */
const API_OPERATIONS = new Set<OperationDefinition>(Object.values(OPERATIONS));

/**
 * Mounts every operation on `app`, each from its registry entry: method and path, then in one
 * step what every request of it needs before anything is read (the operation it is, CORS for
 * the operations a storefront page calls, the revision, the limits counted per address), the
 * access log line (not for storefront reads), authentication and the limits counted per
 * caller, the JSON body up to the operation's limit (read only once the credentials passed),
 * the Idempotency-Key, parsing with the operation's schemas for the request's revision, and
 * the answer: the handler's value with the success status, checked against the operation's
 * response schema outside production. A preflight for a path is answered before its revision
 * is read. Errors go to the app's error handler, which reads `req.operation`.
 *
 * Routes are the app's own, not a router's: walking a nested router costs every storefront
 * read measurably (`pnpm bench`), and they come first.
 */
export function mountOperations(
  app: IRouter,
  routes: readonly OperationRoute[],
  dependencies: MountDependencies,
): void {
  const { config, logger, clock, services } = dependencies;
  const resolveRevision = revisionResolver(clock);
  const logRequest = httpLogger(logger);
  const storefrontFirst = [...routes].sort(
    (a, b) => Number(isStorefrontRead(b.operation)) - Number(isStorefrontRead(a.operation)),
  );
  const byPath = new Map<string, OperationDefinition[]>();
  for (const { operation } of storefrontFirst) {
    byPath.set(operation.path, [...(byPath.get(operation.path) ?? []), operation]);
  }

  // What every request of an operation needs before anything is read; throws a refusal, or
  // returns a promise rejected with it when the limits are counted in Redis.
  const preparations = new Map<OperationDefinition, Preparation>();
  for (const { operation } of storefrontFirst) {
    const cors = API_OPERATIONS.has(operation) ? corsFor(operation) : undefined;
    const countAddress = services.rateLimits.addressLimit(operation);
    const time = config.metrics ? requestTimer(operation.method, operation.path) : undefined;
    preparations.set(operation, (req, res) => {
      req.operation = operation;
      if (time) time(req, res);
      if (cors) cors(req, res);
      resolveRevision(req, res);
      if (countAddress) return countAddress(req, res);
    });
  }

  for (const route of storefrontFirst) {
    const { operation } = route;
    const path = expressPath(operation.path);
    const prepare = preparations.get(operation) as Preparation;
    // Nothing awaited unless the limits are counted in Redis: the storefront reads stay
    // synchronous.
    const prelude: RequestHandler = (req, res, next) => {
      const counting = prepare(req, res);
      if (counting) return counting.then(() => next());
      next();
    };
    const authenticate = authenticatorFor(operation, services);
    const method = operation.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete";
    app[method](
      path,
      prelude,
      ...(isStorefrontRead(operation) ? [] : [logRequest]),
      ...(authenticate ? [services.rateLimits.guard(authenticate)] : []),
      ...(operation.body ? operationBody(operation, config.bodyLimit) : []),
      ...(honoursIdempotencyKey(operation)
        ? [idempotentRequests(services.idempotency, logger)]
        : []),
      answer(route, dependencies),
    );
  }

  // A preflight per path that a storefront page may call, before any revision is read.
  const preflights = new Map<string, RequestHandler>();
  for (const [path, operations] of byPath) {
    const preflight = preflightFor(operations.filter((operation) => API_OPERATIONS.has(operation)));
    if (preflight) {
      preflights.set(path, preflight);
      app.options(expressPath(path), preflight);
    }
  }

  // A path parameter whose percent-encoding is broken fails Express's matching before any
  // handler of the route runs: these layers, which see errors only, do for such a request what
  // its operation's route would have done first (a preflight's answer; else its revision,
  // CORS, limits and access log line), so that it is answered within that operation's
  // catalogue and in its revision's format.
  for (const [path, operations] of byPath) {
    if (!path.includes("{")) continue;
    const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}/?$`, "i");
    const preflight = preflights.get(path) ?? emptyPreflight;
    app.use(pattern, (error: unknown, req: Request, res: Response, next: NextFunction) => {
      if (!(error instanceof URIError) || req.operation !== undefined) {
        next(error);
        return;
      }
      if (req.method === "OPTIONS" && req.get("access-control-request-method")) {
        preflight(req, res, () => next(error));
        return;
      }
      const method = req.method === "HEAD" ? "GET" : req.method;
      const operation = operations.find((candidate) => candidate.method === method);
      if (!operation) {
        next(error);
        return;
      }
      const proceed = () => {
        if (isStorefrontRead(operation)) next(error);
        else void logRequest(req, res, () => next(error));
      };
      let counting: Promise<void> | void;
      try {
        counting = preparations.get(operation)?.(req, res);
      } catch (refusal) {
        next(refusal);
        return;
      }
      if (counting) void counting.then(proceed, next);
      else proceed();
    });
  }
}

/** What a request of an operation needs before anything is read (see mountOperations). */
type Preparation = (req: Request, res: Response) => void | Promise<void>;

/** A preflight for what no storefront page may call: 204, no CORS header. */
const emptyPreflight: RequestHandler = (_req, res) => {
  res.status(204).end();
};

/**
 * What answers a request that no operation took: a preflight gets an empty 204 (no CORS
 * header: no page may call it), anything else is not-found, in the format of its revision,
 * with its access log line. `routers` (tests' probes) are mounted in that same pipeline.
 */
export function unmatchedRequests(
  dependencies: Pick<MountDependencies, "logger" | "clock" | "config">,
  routers: readonly RequestHandler[] = [],
): RequestHandler[] {
  const resolveRevision = revisionResolver(dependencies.clock);
  // Requests no operation took are timed together, by method: probes and scans show here.
  const timers = new Map<string, (req: Request, res: Response) => void>();
  const time = dependencies.config.metrics
    ? (req: Request, res: Response) => {
        let timer = timers.get(req.method);
        if (!timer) {
          timer = requestTimer(req.method, "unmatched");
          timers.set(req.method, timer);
        }
        timer(req, res);
      }
    : undefined;
  return [
    (req, res, next) => {
      if (time) time(req, res);
      if (req.method === "OPTIONS" && req.get("access-control-request-method")) {
        emptyPreflight(req, res, next);
        return;
      }
      resolveRevision(req, res);
      next();
    },
    httpLogger(dependencies.logger),
    ...routers,
    (req) => {
      throw new AppError("not-found", `No operation at ${req.method} ${req.path}.`);
    },
  ];
}

/** Parses the request's parts, runs the handler and sends what it answered. */
function answer(route: OperationRoute, dependencies: MountDependencies): RequestHandler {
  const { operation, handle, options } = route;
  const { config, logger, services } = dependencies;
  const checkResponses = config.env !== "production" && operation.response !== undefined;
  const cacheControl = options.cacheControl ?? "no-store";
  const headers = options.headers;

  const send = (req: Request, res: Response, result: unknown): void => {
    if (result instanceof Reply) {
      result.send(res);
      return;
    }
    res.setHeader("Cache-Control", cacheControl);
    if (headers) res.set(headers);
    if (options.vary) res.vary(options.vary);
    if (operation.successStatus === 204) {
      res.status(204).end();
      return;
    }
    const text = result instanceof JsonText ? result.text : undefined;
    if (checkResponses) {
      const schema = schemaForRevision(operation.response, req.revision as ApiRevision);
      const checked = schema?.safeParse(text === undefined ? result : JSON.parse(text));
      if (checked && !checked.success) {
        logger.error(
          { operation: operation.path, issues: toValidationIssues(checked.error, "body") },
          "response does not match the operation's schema",
        );
        throw new Error(`response of ${operation.method} ${operation.path} breaks its schema`);
      }
    }
    if (text !== undefined) res.status(operation.successStatus).type("json").send(text);
    else res.status(operation.successStatus).json(result);
  };

  const finish = async (req: Request, res: Response, pending: Promise<unknown>) => {
    const result = await pending;
    if (options.propagates) await services.changes.barrier();
    send(req, res, result);
  };

  // Decided once, when the route is mounted, not per request.
  const pathReason = malformedReason(operation, "path");
  const queryReason = malformedReason(operation, "query");
  const foldsLists = operation.query !== undefined && takesLists(operation.query);
  const bodySchemas = new Map<ApiRevision, z.ZodType | undefined>();
  const parsedParams = (req: Request) =>
    operation.pathParams
      ? parseRequest(operation.pathParams, req.params, "path", pathReason)
      : undefined;
  const parseQuery = (req: Request, schema: z.ZodType) => {
    const rawQuery = req.query as Record<string, unknown>;
    return parseRequest(
      schema,
      foldsLists ? foldIndexedKeys(rawQuery) : rawQuery,
      "query",
      queryReason,
    );
  };
  // A storefront read's query is its page's: every visitor of a product or collection page
  // sends the same one. Its parse is remembered by the request's URL (storefront reads have no
  // path parameters; the query schema is one for every revision), so that a page view pays no
  // query parsing; a refused query is parsed again each time. The handlers only read it.
  const remembered =
    isStorefrontRead(operation) && !operation.pathParams ? new Map<string, unknown>() : undefined;
  const storefrontQuery = (req: Request, schema: z.ZodType, queries: Map<string, unknown>) => {
    let query = queries.get(req.url);
    if (query === undefined) {
      query = parseQuery(req, schema);
      // Bounded whatever the clients send: the oldest remembered goes first.
      if (queries.size >= MAX_REMEMBERED_QUERIES) queries.delete(queries.keys().next().value!);
      queries.set(req.url, query);
    }
    return query;
  };
  /** The query and body, parsed for the request's revision. */
  const parsedContent = (req: Request, revision: ApiRevision) => {
    const querySchema = operation.query;
    const query = querySchema
      ? remembered
        ? storefrontQuery(req, querySchema, remembered)
        : parseQuery(req, querySchema)
      : undefined;
    let schema = bodySchemas.get(revision);
    if (schema === undefined && operation.body && !bodySchemas.has(revision)) {
      schema = bodySchema(operation, revision);
      bodySchemas.set(revision, schema);
    }
    const body = schema ? parseRequest(schema, req.body ?? {}, "body") : undefined;
    return { query, body };
  };

  if (operation.auth === "bearer") {
    // As a back-office user expects: a path naming another store, or none, is refused before
    // what the request asks is looked at.
    return (req, res) => {
      const revision = req.revision as ApiRevision;
      const params = parsedParams(req);
      const admin = req.admin as AdminPrincipal;
      return finish(
        req,
        res,
        storeOf(params, admin, services).then((store) => {
          const input = { params, ...parsedContent(req, revision), revision, req, admin, store };
          return handle(input);
        }),
      );
    };
  }
  return (req, res) => {
    const revision = req.revision as ApiRevision;
    const input = {
      params: parsedParams(req),
      ...parsedContent(req, revision),
      revision,
      req,
      store: req.store,
      customerId: req.customerExternalId,
    };
    const result = handle(input);
    if (result instanceof Promise || options.propagates) {
      return finish(req, res, Promise.resolve(result));
    }
    // The storefront reads answered from memory: nothing is awaited.
    send(req, res, result);
  };
}

/**
 * Whether a query schema takes lists (`categories`): Express's simple query parser keeps
 * `categories[]=1` and `categories[0]=1` under those very keys, which are folded into the list
 * for such operations only. Elsewhere such a key is one the operation does not read.
 */
function takesLists(schema: z.ZodType): boolean {
  const json = JSON.stringify(toJSONSchema(schema, { unrepresentable: "any", io: "input" }));
  return json.includes('"type":"array"');
}

/**
 * The store a back-office path names (`{storeId}`), once the token is known to act on it: a
 * store's token acts only on its own store.
 */
async function storeOf(
  params: unknown,
  admin: AdminPrincipal,
  services: MountDependencies["services"],
): Promise<StoreRow | undefined> {
  const storeId = (params as { storeId?: number } | undefined)?.storeId;
  if (storeId === undefined) return undefined;
  if (admin.storeId !== null && admin.storeId !== storeId) {
    throw new AppError("forbidden", "The access token is for another store.");
  }
  const store = await services.stores.findById(storeId);
  if (!store) throw new AppError("not-found", `No store has the id ${storeId}.`);
  return store;
}
