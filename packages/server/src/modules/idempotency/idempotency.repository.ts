import type { Queryable } from "../../db/pool.js";

/** How long a key is remembered: a request older than this is not replayed, and is deleted. */
const KEPT_FOR = "interval '24 hours'";

/** A key as kept: the table's CHECK holds the response exactly when the state is done. */
export type IdempotencyKeyRow = {
  fingerprint: Buffer;
  /** In progress for longer than a request can take: the process that ran it died. */
  abandoned: boolean;
} & (
  | { state: "in_progress" }
  | { state: "done"; status: number; headers: Record<string, string>; body: Buffer }
);

/** A request with an Idempotency-Key. */
export interface IdempotencyClaim {
  /** Who sent the key: keys of different senders never meet. */
  scope: string;
  key: string;
  /** SHA-256 of the request: the same key with another request is refused. */
  fingerprint: Buffer;
}

/**
 * Takes each key for a request about to run: a new row in progress, or the row of a key
 * expired, or abandoned by a request with the same fingerprint. False for a key held by a live
 * row (done, or still running), and for a key already taken earlier in `claims`.
 *
 * Committed without waiting for the disk (synchronous_commit off for this transaction alone):
 * it is seen by other sessions at once, and the write-ahead log is flushed in order, so the
 * claim is on disk as soon as anything the request then commits is (its operation's writes,
 * or the kept response). The request answers sooner by a disk flush, and the log is flushed
 * once less per batch. What a crash of the database can lose: the claim of a request that has
 * written nothing yet (a refusal, whose response is kept a moment after it is sent), so that
 * its retry runs again rather than waiting five minutes for the key to be abandoned.
 */
export async function claimIdempotencyKeys(
  db: Queryable,
  claims: readonly IdempotencyClaim[],
  abandonedAfterMs: number,
): Promise<boolean[]> {
  // One statement may not take a row twice: the first of a key's claims competes for it.
  const first = new Map<string, number>();
  claims.forEach((claim, index) => {
    const id = JSON.stringify([claim.scope, claim.key]);
    if (!first.has(id)) first.set(id, index);
  });
  const competing = [...first.values()].map((index) => claims[index] as IdempotencyClaim);
  const { rows } = await db.query<{ scope: string; key: string }>(
    `INSERT INTO idempotency_keys (scope, key, fingerprint)
     SELECT scope, key, fingerprint FROM unnest($1::text[], $2::text[], $3::bytea[])
       AS i(scope, key, fingerprint)
     CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS commit_unflushed
     -- Key order: two batches holding the same keys never wait on each other in a cycle.
     ORDER BY scope, key
     ON CONFLICT (scope, key) DO UPDATE
       SET fingerprint = EXCLUDED.fingerprint, state = 'in_progress', status = NULL,
           headers = NULL, body = NULL, created_at = now()
       WHERE idempotency_keys.created_at < now() - ${KEPT_FOR}
          OR (idempotency_keys.state = 'in_progress'
              AND idempotency_keys.fingerprint = EXCLUDED.fingerprint
              AND idempotency_keys.created_at < now() - $4 * interval '1 millisecond')
     RETURNING scope, key`,
    [
      competing.map((claim) => claim.scope),
      competing.map((claim) => claim.key),
      competing.map((claim) => claim.fingerprint),
      abandonedAfterMs,
    ],
  );
  const taken = new Set(rows.map((row) => first.get(JSON.stringify([row.scope, row.key]))));
  return claims.map((_, index) => taken.has(index));
}

export async function findIdempotencyKey(
  db: Queryable,
  scope: string,
  key: string,
  abandonedAfterMs: number,
): Promise<IdempotencyKeyRow | undefined> {
  const { rows } = await db.query<IdempotencyKeyRow>(
    `SELECT fingerprint, state, status, headers, body,
            created_at < now() - $3 * interval '1 millisecond' AS abandoned
     FROM idempotency_keys
     WHERE scope = $1 AND key = $2 AND created_at >= now() - ${KEPT_FOR}`,
    [scope, key, abandonedAfterMs],
  );
  return rows[0];
}

export interface IdempotencyCompletion {
  scope: string;
  key: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Keeps the responses of keys in progress. The rows are locked in key order first, as claims
 * take them: a retry's claim meets the key it waits for while its response is being kept, and
 * an UPDATE locking in whatever order its plan reads would deadlock with a claim batch.
 */
export async function completeIdempotencyKeys(
  db: Queryable,
  completions: readonly IdempotencyCompletion[],
): Promise<void> {
  await db.query(
    `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::smallint[], $4::jsonb[], $5::bytea[])
         AS i(scope, key, status, headers, body)
     ), locked AS (
       SELECT k.scope, k.key FROM idempotency_keys k
       JOIN input i ON k.scope = i.scope AND k.key = i.key
       ORDER BY k.scope, k.key
       FOR NO KEY UPDATE OF k
     )
     UPDATE idempotency_keys k
     SET state = 'done', status = i.status, headers = i.headers, body = i.body
     FROM locked JOIN input i ON i.scope = locked.scope AND i.key = locked.key
     WHERE k.scope = locked.scope AND k.key = locked.key`,
    [
      completions.map((completion) => completion.scope),
      completions.map((completion) => completion.key),
      completions.map((completion) => completion.status),
      completions.map((completion) => JSON.stringify(completion.headers)),
      completions.map((completion) => completion.body),
    ],
  );
}

export async function deleteIdempotencyKey(db: Queryable, scope: string, key: string) {
  await db.query(`DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2`, [scope, key]);
}

/** Deletes up to `limit` expired keys; returns how many. */
export async function deleteExpiredIdempotencyKeys(db: Queryable, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM idempotency_keys WHERE (scope, key) IN (
       SELECT scope, key FROM idempotency_keys WHERE created_at < now() - ${KEPT_FOR} LIMIT $1
     )`,
    [limit],
  );
  return rowCount ?? 0;
}
