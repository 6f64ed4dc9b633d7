import type { ApiRevision, OperationDefinition } from "@loyalty/shared-types";
import type { Request, Response } from "express";
import type { z } from "zod";
import type { AuthenticatedStore } from "../auth/auth.types.js";
import type { AdminPrincipal } from "../modules/admin/admin-auth.service.js";
import type { StoreRow } from "../modules/stores/stores.repository.js";

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** A part of the request, or of the answer, that may differ by revision. */
type PerRevision<S, Side extends "output" | "input"> = S extends z.ZodType
  ? Side extends "output"
    ? z.output<S>
    : z.input<S>
  : S extends Record<string, infer Each>
    ? Each extends z.ZodType
      ? Side extends "output"
        ? z.output<Each>
        : z.input<Each>
      : never
    : undefined;

/** Who the credentials say is asking, by the operation's authentication. */
type Caller<O extends OperationDefinition> = O["auth"] extends "bearer"
  ? {
      admin: AdminPrincipal;
      /** The store named by `{storeId}` in the path (the token may act on it). */
      store: O["pathParams"] extends z.ZodType ? StoreRow : undefined;
    }
  : O["auth"] extends "hmac"
    ? {
        store: AuthenticatedStore;
        /** The customer the hash was checked against. */
        customerId: number;
      }
    : O["auth"] extends "basic"
      ? { store: AuthenticatedStore }
      : object;

/** What a handler receives: the request's parts, parsed with the registry's schemas. */
export type OperationInput<O extends OperationDefinition> = {
  params: Parsed<O["pathParams"]>;
  query: Parsed<O["query"]>;
  body: PerRevision<O["body"], "output">;
  revision: ApiRevision;
  req: Request;
} & Caller<O>;

/**
 * An answer the handler sends itself: a storefront read's cached bytes with their ETag, the
 * claim's refusal (404 with a JSON body that is not a problem).
 */
export class Reply {
  constructor(readonly send: (res: Response) => void) {}
}

/**
 * A response the handler has already written as JSON, in whole or in part by PostgreSQL (an
 * account page's transactions): sent as it is, with the headers, status and checks of any
 * other response.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/** What the handler answers: the operation's response (in the request's revision), a Reply,
 * its JSON already written, or nothing for 204. */
export type OperationOutput<O extends OperationDefinition> =
  | (O["response"] extends z.ZodType | Record<string, z.ZodType>
      ? PerRevision<O["response"], "input">
      : void)
  | Reply
  | JsonText;

export type OperationHandler<O extends OperationDefinition> = (
  input: OperationInput<O>,
) => OperationOutput<O> | Promise<OperationOutput<O>>;

export interface OperationOptions {
  /**
   * The operation changes data the storefront reads keep in memory: it answers once every
   * server process has forgotten the old data (a read that follows, on any process, sees the
   * change).
   */
  propagates?: boolean;
  /** Cache-Control of a success; `no-store` unless given. */
  cacheControl?: string;
  /** Request headers the answer varies by, besides those Express adds. */
  vary?: string;
  /** Other headers of a success. */
  headers?: Record<string, string>;
}

/** An operation of the registry bound to what answers it: what the app mounts. */
export interface OperationRoute {
  operation: OperationDefinition;
  handle: OperationHandler<OperationDefinition>;
  options: OperationOptions;
}

/** Binds an operation of OPERATIONS or ADMIN_OPERATIONS to its handler. */
export function operationRoute<O extends OperationDefinition>(
  operation: O,
  handle: OperationHandler<O>,
  options: OperationOptions = {},
): OperationRoute {
  return {
    operation,
    handle: handle,
    options,
  };
}
