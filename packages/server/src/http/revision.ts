import { REVISION_HEADER, resolveRevision, type ApiRevision } from "@loyalty/shared-types";
import type { Request, Response } from "express";
import type { Clock } from "../clock.js";
import { AppError } from "../errors.js";

const DAY_MS = 86_400_000;

interface Served {
  revision: ApiRevision;
  /** Deprecation and Sunset HTTP-dates, for a deprecated revision. */
  deprecation?: { deprecation: string; sunset: string };
}

/**
 * The spec's versioning rules: no header serves the oldest supported revision; a value that is
 * not a calendar day is invalid-revision-header; an unknown or retired one is
 * unknown-api-revision. A deprecated revision is served with Deprecation and Sunset headers.
 *
 * Sets `req.revision` and the response's revision headers, or throws the reason.
 *
 * Lifecycles move by whole days, and every request runs this: what a header resolves to is
 * remembered until the day changes (a handful of entries: only the accepted values).
 */
export function revisionResolver(clock: Clock): (req: Request, res: Response) => void {
  let day = Number.NaN;
  let accepted = new Map<string | undefined, Served>();
  return (req, res) => {
    const now = clock();
    const today = Math.floor(now.getTime() / DAY_MS);
    if (today !== day) {
      day = today;
      accepted = new Map();
    }
    const header = req.get(REVISION_HEADER);
    let served = accepted.get(header);
    if (!served) {
      const resolution = resolveRevision(header, now);
      if (!resolution.ok) throw new AppError(resolution.reason, resolution.message);
      const { lifecycle } = resolution;
      served = {
        revision: lifecycle.revision,
        ...(lifecycle.status === "deprecated" && {
          deprecation: {
            deprecation: lifecycle.deprecatedOn.toUTCString(),
            sunset: lifecycle.sunsetOn.toUTCString(),
          },
        }),
      };
      accepted.set(header, served);
    }
    req.revision = served.revision;
    res.setHeader(REVISION_HEADER, served.revision);
    if (served.deprecation) {
      res.setHeader("Deprecation", served.deprecation.deprecation);
      res.setHeader("Sunset", served.deprecation.sunset);
    }
  };
}
