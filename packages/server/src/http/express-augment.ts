import type { ApiRevision, OperationDefinition } from "@loyalty/shared-types";
import type { AuthenticatedStore } from "../auth/auth.types.js";
import type { AccessLog } from "./logger.js";
import type { AdminPrincipal } from "../modules/admin/admin-auth.service.js";

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set first: the id echoed in X-Request-Id and written in every log line. */
      requestId: string;
      /** The operation of the registry the request's route is for; unset when none matched. */
      operation?: OperationDefinition;
      /** The revision this request is served with; unset only when its header was refused. */
      revision?: ApiRevision;
      /** The store the credentials of this request belong to, once authenticated. */
      store?: AuthenticatedStore;
      /** For HMAC operations: the customer identifier the hash was checked against. */
      customerExternalId?: number;
      /** For back-office operations: the admin the bearer token was issued to, and its scope. */
      admin?: AdminPrincipal;
      /** Set by the access log (`httpLogger`); lines about the request go through `requestLog`. */
      accessLog?: AccessLog;
    }
  }
}

export {};
