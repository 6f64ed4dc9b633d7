import { REVISION_HEADER, resolveRevision } from "@loyalty/shared-types";
import type { RequestHandler } from "express";
import { AppError } from "./app-error.js";

export type Clock = () => Date;

/**
 * The spec's versioning rules: no header serves the oldest supported revision; a value that is
 * not a calendar day is invalid-revision-header; an unknown or retired one is
 * unknown-api-revision. A deprecated revision is served with Deprecation and Sunset headers.
 */
export function revisionMiddleware(clock: Clock): RequestHandler {
  return (req, res, next) => {
    const resolution = resolveRevision(req.get(REVISION_HEADER), clock());
    if (!resolution.ok) throw new AppError(resolution.reason, resolution.message);
    const { lifecycle } = resolution;
    req.revision = lifecycle.revision;
    res.setHeader(REVISION_HEADER, lifecycle.revision);
    if (lifecycle.status === "deprecated") {
      res.setHeader("Deprecation", lifecycle.deprecatedOn.toUTCString());
      res.setHeader("Sunset", lifecycle.sunsetOn.toUTCString());
    }
    next();
  };
}
