import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's X-Request-Id when it is sane (a proxy's trace id), else makes one. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get("x-request-id");
  req.requestId = incoming && ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader("X-Request-Id", req.requestId);
  next();
};
