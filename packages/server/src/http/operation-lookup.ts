import { ADMIN_OPERATIONS, OPERATIONS } from "@loyalty/shared-types";

/**
 * Finds the operation of a registry a request is for, from its method and path, before any
 * router ran: what the CORS and rate-limit middlewares decide by. Paths without parameters are
 * one map look-up; the few templated ones (`/point/user-history/{externalId}`) a pattern each.
 */
export function operationFinder<T extends { method: string; path: string }>(
  operations: Iterable<T>,
): (method: string, path: string) => T | undefined {
  const exact = new Map<string, T>();
  const templated: { method: string; pattern: RegExp; operation: T }[] = [];
  for (const operation of operations) {
    const { method, path } = operation;
    if (path.includes("{")) {
      const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`);
      templated.push({ method, pattern, operation });
    } else {
      exact.set(`${method} ${path}`, operation);
    }
  }
  return (requestMethod, requestPath) => {
    // As Express routes them: HEAD is served by the GET handler, paths match whatever their
    // letter case and with one trailing slash. A limit or a CORS rule must not be dodged by
    // writing `/Reward/List/`.
    const method = requestMethod === "HEAD" ? "GET" : requestMethod;
    let path = requestPath.toLowerCase();
    if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
    return (
      exact.get(`${method} ${path}`) ??
      templated.find((entry) => entry.method === method && entry.pattern.test(path))?.operation
    );
  };
}

/** The operation of the API or the back-office a request is for. */
export const findOperation = operationFinder([
  ...Object.values(OPERATIONS),
  ...Object.values(ADMIN_OPERATIONS),
]);
