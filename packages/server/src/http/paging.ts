import type { ValidationIssue } from "@loyalty/shared-types";
import { AppError } from "../errors.js";
import { describeIssues } from "./validate.js";

/**
 * Keyset paging, newest first: a page's cursor is the id of the last item it shows, and the
 * next page lists the ids below it. A list asks its repository for one row more than the page
 * holds (`pageFetchSize`); that row tells whether a next page exists (`paged`).
 */

/** A page of a list, as the shared query schema parsed it (limit already clamped). */
export interface PageRequest {
  limit: number;
  /** As received; undefined for the first page. */
  cursor?: string | undefined;
}

/** A page's cursor: the id of the last item it shows, as text, in base64url. */
export function encodeCursor(id: number): string {
  return Buffer.from(String(id)).toString("base64url");
}

/**
 * The id a cursor of ours holds, or undefined for anything else. Node decodes base64url
 * leniently (it skips what is not of the alphabet), so only a cursor that encodes back to
 * itself is one we issued.
 */
export function decodeCursor(cursor: string): number | undefined {
  const id = Number(Buffer.from(cursor, "base64url").toString("utf8"));
  return Number.isSafeInteger(id) && id > 0 && encodeCursor(id) === cursor ? id : undefined;
}

/**
 * Where a page starts: below the id its cursor holds, or at the newest (null). A cursor we did
 * not issue is validation-failed on the query's `/cursor`.
 */
export function pageStart(cursor: string | undefined): number | null {
  if (cursor === undefined) return null;
  const id = decodeCursor(cursor);
  if (id !== undefined) return id;
  const issues: ValidationIssue[] = [
    {
      location: "query",
      pointer: "/cursor",
      message: "must be the nextCursor of a previous page",
      code: "invalid_cursor",
    },
  ];
  throw new AppError("validation-failed", describeIssues(issues), issues);
}

/** How many rows to fetch for a page of `limit`: one more, to learn whether a next page exists. */
export function pageFetchSize(limit: number): number {
  return limit + 1;
}

/** The page's items, and the cursor of the next page when `fetched` (see pageFetchSize) says one exists. */
export function paged<T extends { id: number }>(
  fetched: readonly T[],
  limit: number,
): { items: T[]; nextCursor: string | null } {
  const items = fetched.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: last && fetched.length > limit ? encodeCursor(last.id) : null };
}
