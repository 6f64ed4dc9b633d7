import type { ValidationIssue } from "@loyalty/shared-types";
import type { z } from "zod";
import { AppError } from "../errors.js";

type Location = ValidationIssue["location"];

function pointer(path: readonly PropertyKey[]): string {
  return path.map((part) => `/${String(part).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

export function toValidationIssues(error: z.ZodError, location: Location): ValidationIssue[] {
  return error.issues.flatMap((issue): ValidationIssue[] =>
    // Each field a strict object does not know is pointed at, not its parent.
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({
          location,
          pointer: pointer([...issue.path, key]),
          message: "is not a field of this object",
          code: issue.code,
        }))
      : [{ location, pointer: pointer(issue.path), message: issue.message, code: issue.code }],
  );
}

export function describeIssues(issues: ValidationIssue[]): string {
  return issues
    .map((issue) => `${issue.location}${issue.pointer || ""}: ${issue.message}`)
    .join("; ");
}

/**
 * Parses one part of a request with a shared schema. A failure becomes validation-failed
 * listing every issue, or the reason the operation's contract gives instead (not-found for a
 * widget's missing domain, unauthorized for a customer operation's missing hash).
 */
export function parseRequest<S extends z.ZodType>(
  schema: S,
  value: unknown,
  location: Location,
  onFailure: "validation-failed" | "not-found" | "unauthorized" = "validation-failed",
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  if (onFailure !== "validation-failed") throw new AppError(onFailure);
  const issues = toValidationIssues(result.error, location);
  throw new AppError("validation-failed", describeIssues(issues), issues);
}

const INDEXED_KEY = /^([^[\]]+)\[\d*\]$/;

/**
 * Express's simple query parser keeps `categories[]=1` and `categories[0]=1` under those very
 * keys. Folds them into `categories`, after its plain values, for the shared schema to read.
 */
export function foldIndexedKeys(query: Record<string, unknown>): Record<string, unknown> {
  let folded: Record<string, unknown> | undefined;
  for (const key in query) {
    const name = key.endsWith("]") ? INDEXED_KEY.exec(key)?.[1] : undefined;
    if (name === undefined) continue;
    // No prototype: `__proto__[]=1` must fold into a plain key, not replace the prototype.
    folded ??= Object.assign(Object.create(null) as Record<string, unknown>, query);
    folded[name] = [folded[name] ?? [], query[key]].flat();
    delete folded[key];
  }
  return folded ?? query;
}
