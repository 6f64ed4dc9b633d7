import { z } from "zod";

/**
 * The registry of API revisions. A revision is named after its day of availability and is
 * never changed incompatibly once published; its lifecycle (stable, deprecated, retired) is
 * computed from its release day, one year per phase.
 */
export const REVISIONS = [
  {
    revision: "2026-01-01",
    releasedOn: "2026-01-01",
    summary: "Historical contract, served when no revision header is sent.",
  },
  {
    revision: "2026-06-18",
    releasedOn: "2026-06-18",
    summary:
      "Order field externalRef renamed externalId (numeric); optional externalReference added.",
  },
  {
    revision: "2026-08-26",
    releasedOn: "2026-08-26",
    summary:
      "Errors served as RFC 9457 application/problem+json with a stable type per reason; endpoint contracts unchanged from 2026-06-18.",
  },
] as const;

export type ApiRevision = (typeof REVISIONS)[number]["revision"];

export const API_REVISIONS = REVISIONS.map((r) => r.revision) as [ApiRevision, ...ApiRevision[]];

/** The newest revision: what new integrations should pin. */
export const LATEST_REVISION: ApiRevision = "2026-08-26";

export const apiRevisionSchema = z.enum(API_REVISIONS);

/** The header name that selects a revision, on requests and echoed on responses. */
export const REVISION_HEADER = "revision";

export type RevisionStatus = "stable" | "deprecated" | "retired";

export interface RevisionLifecycle {
  revision: ApiRevision;
  status: RevisionStatus;
  releasedOn: Date;
  /** The day the revision becomes (or became) deprecated: one year after release. */
  deprecatedOn: Date;
  /** The day the revision is (or was) retired: one year after deprecation. */
  sunsetOn: Date;
}

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses `YYYY-MM-DD` as a real calendar day (UTC midnight), or returns undefined. */
export function parseCalendarDay(value: string): Date | undefined {
  const match = DAY_PATTERN.exec(value);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, keeps years 0-99 as they are written.
  date.setUTCFullYear(year, month - 1, day);
  const roundTrips =
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return roundTrips ? date : undefined;
}

function addYears(date: Date, years: number): Date {
  const next = new Date(date);
  next.setUTCFullYear(next.getUTCFullYear() + years);
  return next;
}

export function revisionLifecycle(revision: ApiRevision, now: Date): RevisionLifecycle {
  const entry = REVISIONS.find((r) => r.revision === revision);
  if (!entry) throw new Error(`Unknown revision ${revision}`);
  const releasedOn = parseCalendarDay(entry.releasedOn) as Date;
  const deprecatedOn = addYears(releasedOn, 1);
  const sunsetOn = addYears(releasedOn, 2);
  const status: RevisionStatus =
    now < deprecatedOn ? "stable" : now < sunsetOn ? "deprecated" : "retired";
  return { revision, status, releasedOn, deprecatedOn, sunsetOn };
}

/** The revisions that are served at `now` (released, not retired), oldest first. */
export function supportedRevisions(now: Date): ApiRevision[] {
  return API_REVISIONS.filter((r) => {
    const lifecycle = revisionLifecycle(r, now);
    return lifecycle.releasedOn <= now && lifecycle.status !== "retired";
  });
}

export type RevisionResolution =
  | { ok: true; lifecycle: RevisionLifecycle }
  | {
      ok: false;
      reason: "invalid-revision-header" | "unknown-api-revision";
      message: string;
    };

/**
 * Applies the versioning rules to the value of the `revision` header: no header serves the
 * oldest supported revision; a value that is not a `YYYY-MM-DD` calendar day is
 * invalid-revision-header; a day that names no revision, or a retired one, is
 * unknown-api-revision. There is no fallback.
 */
export function resolveRevision(header: string | undefined, now: Date): RevisionResolution {
  const supported = supportedRevisions(now);
  if (header === undefined) {
    const oldest = supported[0];
    if (oldest) return { ok: true, lifecycle: revisionLifecycle(oldest, now) };
    return {
      ok: false,
      reason: "unknown-api-revision",
      message: "No API revision is supported any more.",
    };
  }
  if (!parseCalendarDay(header)) {
    return {
      ok: false,
      reason: "invalid-revision-header",
      message: `The revision header must be a date in YYYY-MM-DD format; received "${header.slice(0, 40)}".`,
    };
  }
  const known = (supported as string[]).includes(header);
  if (!known) {
    return {
      ok: false,
      reason: "unknown-api-revision",
      message: `API revision ${header} is not supported. Supported revisions: ${supported.join(", ")}.`,
    };
  }
  return { ok: true, lifecycle: revisionLifecycle(header as ApiRevision, now) };
}

/** From 2026-08-26 errors are RFC 9457 problem objects; before, the legacy body. */
export function usesProblemDetails(revision: ApiRevision): boolean {
  return revision >= "2026-08-26";
}

/** 2026-01-01 names the order identifier `externalRef`; later revisions `externalId`. */
export function usesLegacyOrderRef(revision: ApiRevision): boolean {
  return revision < "2026-06-18";
}
