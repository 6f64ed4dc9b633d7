/**
 * The SET clause of a back-office update: the columns of the fields given (undefined means
 * "unchanged"), as parameters numbered from `firstParameter`, and `updated_at = now()`. Column
 * names come only from the caller's own map of updatable fields, never from the request.
 */
export function setClause<F extends string>(
  columns: Readonly<Record<F, string>>,
  changes: Partial<Record<F, unknown>>,
  firstParameter: number,
): { sql: string; values: unknown[] } {
  const fields = (Object.keys(columns) as F[]).filter((field) => changes[field] !== undefined);
  const assignments = fields.map(
    (field, index) => `${columns[field]} = $${index + firstParameter}`,
  );
  return {
    sql: [...assignments, "updated_at = now()"].join(", "),
    values: fields.map((field) => changes[field]),
  };
}
