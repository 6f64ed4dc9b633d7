import { IncomingMessage, ServerResponse, createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import type { Express } from "express";
import type { Config } from "../config.js";

type RequestClass = typeof IncomingMessage;
type ResponseClass = typeof ServerResponse;

/**
 * Node's request and response classes, as the server's options name them, with the app's
 * request and response (Express's methods over Node's) as their prototypes: each request is
 * born what Express would make it.
 *
 * Express gives every request and response its prototypes with `Object.setPrototypeOf` as it
 * enters the app. V8 handles an object whose prototype changes after it was made by a slower
 * path, and under load about a third of what a request allocates then outlives the young
 * generation's collections: a bare Express hello-world promoted about 4 MB per scavenge into
 * the old generation, to be collected there, where the same app with its objects born with
 * their prototypes kept 10 kB (`node --trace-gc-nvp`, 50 connections, 2026-11-27), and ran about
 * 2.5 times as many requests a second. Express then finds each prototype already in place, and
 * its `setPrototypeOf` changes nothing.
 */
function appClasses(
  app: Express,
): { IncomingMessage: RequestClass; ServerResponse: ResponseClass } | Record<string, never> {
  // Node's constructors are plain functions, which these call on the object `new` made with
  // the app's prototype. Were a Node to make them classes (which cannot be called so), its
  // own would serve, and Express would set the prototypes as it does by default.
  // (Reflect.construct with the app's function as new.target works with both, but V8 builds
  // such objects slowly: calculate ran at less than half the rate.)
  const callable = [IncomingMessage, ServerResponse].every(
    (constructor) => !/^class\b/.test(Function.prototype.toString.call(constructor)),
  );
  if (!callable) return {};
  function AppRequest(this: IncomingMessage, socket: Socket) {
    IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, req: IncomingMessage, options?: object) {
    (ServerResponse as unknown as (req: IncomingMessage, options?: object) => void).call(
      this,
      req,
      options,
    );
  }
  AppResponse.prototype = app.response;
  return {
    IncomingMessage: AppRequest as unknown as RequestClass,
    ServerResponse: AppResponse as unknown as ResponseClass,
  };
}

/**
 * The HTTP server for the app: its timeouts from the configuration, its requests and responses
 * made of the app's prototypes (see appClasses). Not yet listening.
 */
export function createHttpServer(app: Express, http: Config["http"]): Server {
  const server = createServer(
    {
      ...appClasses(app),
      headersTimeout: http.headersTimeoutMs,
      requestTimeout: http.requestTimeoutMs,
      // Node looks for expired requests every 30 s by default, which would let a slow client
      // hold its connection up to 30 s past its timeout.
      connectionsCheckingInterval: Math.min(1_000, http.headersTimeoutMs),
    },
    app,
  );
  server.keepAliveTimeout = http.keepAliveTimeoutMs;
  return server;
}
