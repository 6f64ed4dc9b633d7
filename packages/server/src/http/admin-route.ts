import type { OperationDefinition } from "@loyalty/shared-types";
import type { Request, Router } from "express";
import type { z } from "zod";
import { bearerAuth } from "../auth/bearer.middleware.js";
import type { AdminPrincipal } from "../modules/admin/admin-auth.service.js";
import type { StoreRow } from "../modules/stores/stores.repository.js";
import type { AppContext } from "../runtime.js";
import { AppError } from "../errors.js";
import { operationBody } from "./body.js";
import { honoursIdempotencyKey, idempotentRequests } from "./idempotency.middleware.js";
import { expressPath } from "./operation-route.js";
import { foldIndexedKeys, parseRequest, toValidationIssues } from "./validate.js";

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a back-office handler receives: the request's parts, parsed with the shared schemas. */
export interface AdminInput<O extends OperationDefinition> {
  admin: AdminPrincipal;
  params: Parsed<O["pathParams"]>;
  query: Parsed<O["query"]>;
  body: Parsed<O["body"]>;
  /** The store named by `{storeId}` in the path (the token may act on it). */
  store: O["pathParams"] extends z.ZodType ? StoreRow : undefined;
}

/** What the handler answers: the operation's response, or nothing for 204. */
export type AdminOutput<O extends OperationDefinition> = O["response"] extends z.ZodType
  ? z.input<O["response"]>
  : void;

export interface AdminRouteOptions {
  /**
   * The operation changes data the storefront reads keep in memory: it answers once every
   * server process has forgotten the old data (a read that follows, on any process, sees the
   * change).
   */
  propagates?: boolean;
}

/**
 * Mounts a back-office operation of ADMIN_OPERATIONS: its method and path, bearer
 * authentication, then the JSON body (only for operations that take one), the Idempotency-Key
 * (POST), the store scope of the token, parsing with the operation's schemas (a
 * malformed id in the path is not-found, a bad query or body validation-failed), and the success
 * status. Outside production every response is checked against the operation's schema, so
 * that the OpenAPI document cannot drift from what the server answers.
 */
export function adminRoute<O extends OperationDefinition>(
  router: Router,
  context: AppContext,
  operation: O,
  handler: (input: AdminInput<O>, req: Request) => AdminOutput<O> | Promise<AdminOutput<O>>,
  options: AdminRouteOptions = {},
): void {
  const { services, config, logger } = context;
  const method = operation.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete";
  router[method](
    expressPath(operation.path),
    services.rateLimits.guard(bearerAuth(services.adminAuth, operation.scope ?? "store")),
    ...(operation.body ? operationBody(operation, config.bodyLimit) : []),
    ...(honoursIdempotencyKey(operation) ? [idempotentRequests(services.idempotency)] : []),
    async (req, res) => {
      const admin = req.admin as AdminPrincipal;
      const params = operation.pathParams
        ? parseRequest(operation.pathParams, req.params, "path", "not-found")
        : undefined;
      let store: StoreRow | undefined;
      const storeId = (params as { storeId?: number } | undefined)?.storeId;
      if (storeId !== undefined) {
        if (admin.storeId !== null && admin.storeId !== storeId) {
          throw new AppError("forbidden", "The access token is for another store.");
        }
        store = await services.stores.findById(storeId);
        if (!store) throw new AppError("not-found", `No store has the id ${storeId}.`);
      }
      const query = operation.query
        ? parseRequest(
            operation.query,
            foldIndexedKeys(req.query as Record<string, unknown>),
            "query",
          )
        : undefined;
      const body = operation.body
        ? parseRequest(operation.body as z.ZodType, req.body ?? {}, "body")
        : undefined;
      const input = { admin, params, query, body, store } as AdminInput<O>;
      const result = await handler(input, req);
      if (options.propagates) await services.changes.barrier();
      res.set("Cache-Control", "no-store");
      if (operation.successStatus === 204) {
        res.status(204).end();
        return;
      }
      if (config.env !== "production" && operation.response) {
        const checked = (operation.response as z.ZodType).safeParse(result);
        if (!checked.success) {
          logger.error(
            { operation: operation.path, issues: toValidationIssues(checked.error, "body") },
            "response does not match the operation's schema",
          );
          throw new Error(`response of ${operation.method} ${operation.path} breaks its schema`);
        }
      }
      res.status(operation.successStatus).json(result);
    },
  );
}
