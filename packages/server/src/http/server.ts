import { IncomingMessage, Server, ServerResponse, createServer } from "node:http";
import type { Socket } from "node:net";
import type { Express } from "express";
import type { Config } from "../config.js";

type RequestClass = typeof IncomingMessage;
type ResponseClass = typeof ServerResponse;

/**
 * Node's request and response classes, with the app's request and response (Express's methods
 * over Node's) as their prototypes: each request is born what Express would make it.
 *
 * Express gives every request and response its prototypes with `Object.setPrototypeOf` as it
 * enters the app. V8 handles an object whose prototype changes after it was made by a slower
 * path, and under load about a third of what a request allocates then outlives the young
 * generation's collections: a bare Express hello-world copied 4 MB per scavenge into the old
 * generation, then collected it there, where an app whose objects were born with their
 * prototype copied 10 kB (`node --trace-gc-nvp`, 50 connections, 2026-11-27). Express finds
 * the prototype already in place and its `setPrototypeOf` changes nothing.
 */
function appClasses(app: Express): { request: RequestClass; response: ResponseClass } {
  // Constructor functions rather than classes: a class's `prototype` cannot be reassigned, and
  // Node's own IncomingMessage and ServerResponse are such functions, called the same way.
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
    request: AppRequest as unknown as RequestClass,
    response: AppResponse as unknown as ResponseClass,
  };
}

/**
 * The HTTP server for the app: its timeouts from the configuration, its requests and responses
 * made of the app's prototypes (see appClasses). Not yet listening.
 */
export function createHttpServer(app: Express, http: Config["http"]): Server {
  const { request, response } = appClasses(app);
  const server = createServer(
    {
      IncomingMessage: request,
      ServerResponse: response,
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
