import express, { type Express, type Request } from "express";

const PARSED = Symbol("the request's parsed query");

type WithParsedQuery = Request & { [PARSED]?: { url: string; query: unknown } };

/**
 * Express 5's `req.query` is a getter that parses the query string each time it is read. A
 * customer operation's request reads it four times (CORS, the customer's rate limit, the hash
 * check, the operation's own query): the app's requests now parse it once per URL and give
 * every reader that parse (`app.request` is Express's place for such properties). Its readers
 * only read it: the operation's schema makes its own value from it.
 */
export function parseQueryOnce(app: Express): void {
  const own = Object.getOwnPropertyDescriptor(express.request, "query");
  if (!own || !("get" in own)) throw new Error("Express no longer defines req.query as a getter");
  Object.defineProperty(app.request, "query", {
    configurable: true,
    enumerable: true,
    get(this: WithParsedQuery) {
      const kept = this[PARSED];
      if (kept?.url === this.url) return kept.query;
      // Express's own getter, called on this request.
      const query: unknown = Reflect.get(express.request, "query", this);
      this[PARSED] = { url: this.url, query };
      return query;
    },
  });
}
