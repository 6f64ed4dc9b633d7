import { OPERATIONS, orderSchemasFor, type ApiRevision } from "@loyalty/shared-types";
import { Router } from "express";
import type { AuthenticatedStore } from "../../auth/auth.types.js";
import { basicAuth } from "../../auth/basic.middleware.js";
import { operationBody } from "../../http/body.js";
import { idempotentRequests } from "../../http/idempotency.middleware.js";
import { parseRequest } from "../../http/validate.js";
import type { AppContext } from "../../runtime.js";

/**
 * POST /api/order/register and /api/order/refund (Basic). Both answer 201 once the request is
 * durably stored with its job; a worker computes the points. Bodies follow the request's
 * revision: `externalRef` in 2026-01-01, `externalId` (+ `externalReference`) from 2026-06-18.
 */
export function ordersRoutes(context: AppContext): Router {
  const { orders, apiKeys, idempotency, rateLimits } = context.services;
  const { bodyLimit } = context.config;
  const router = Router();
  const auth = rateLimits.guard(basicAuth(apiKeys));
  const idempotent = idempotentRequests(idempotency);

  router.post(
    "/api/order/register",
    auth,
    ...operationBody(OPERATIONS.registerOrder, bodyLimit),
    idempotent,
    async (req, res) => {
      const order = parseRequest(
        orderSchemasFor(req.revision as ApiRevision).register,
        req.body,
        "body",
      );
      const registration = await orders.register(req.store as AuthenticatedStore, order);
      const state = {
        status: registration.status,
        receivedAt: registration.receivedAt.toISOString(),
      };
      res.status(201).json(
        "externalRef" in order
          ? { externalRef: order.externalRef, ...state }
          : {
              externalId: order.externalId,
              externalReference: order.externalReference ?? null,
              ...state,
            },
      );
    },
  );

  router.post(
    "/api/order/refund",
    auth,
    ...operationBody(OPERATIONS.refundOrder, bodyLimit),
    idempotent,
    async (req, res) => {
      const refund = parseRequest(
        orderSchemasFor(req.revision as ApiRevision).refund,
        req.body,
        "body",
      );
      const declared = await orders.refund(req.store as AuthenticatedStore, refund);
      const state = { status: "pending" as const, receivedAt: declared.receivedAt.toISOString() };
      res
        .status(201)
        .json(
          "externalRef" in refund
            ? { externalRef: refund.externalRef, ...state }
            : { externalId: refund.externalId, ...state },
        );
    },
  );

  return router;
}
