import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import type { SecretBox } from "../../crypto/secrets.js";
import { Batcher } from "../../db/batcher.js";
import { AppError } from "../../errors.js";
import {
  claimIdempotencyKeys,
  completeIdempotencyKeys,
  deleteExpiredIdempotencyKeys,
  deleteIdempotencyKey,
  findIdempotencyKey,
  type IdempotencyClaim,
  type IdempotencyCompletion,
} from "./idempotency.repository.js";

/**
 * How long a request waits for another one with its key to answer before giving up: a few
 * seconds, within what an HTTP client waits. Most operations answer well within it.
 */
const WAIT_MS = 5_000;
const POLL_MS = 50;
/**
 * A key still in progress after this long belongs to a request whose process died (the
 * longest request, a claim on PrestaShop at the maximal PLATFORM_TIMEOUT_MS, makes two platform
 * calls of 120 s): a retry with the same request takes it over and runs, rather than the key
 * being unusable for a day.
 */
const ABANDONED_AFTER_MS = 5 * 60_000;
const EXPIRY_BATCH = 10_000;

/** A response as it is kept and replayed. */
export interface KeptResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotentStart =
  /** The request runs; `finish` keeps its response (or forgets the key after a 5xx). */
  | { outcome: "run"; finish: (response: KeptResponse) => Promise<void> }
  /** The same request answered before: its response. */
  | { outcome: "replay"; response: KeptResponse }
  /** The same request is still running elsewhere, after the wait. */
  | { outcome: "in-progress" };

/** The Idempotency-Key of the POST operations: one run per key, its response replayed. */
export class IdempotencyService {
  /**
   * Keys are taken and completed in groups, as registrations are written: under load one
   * statement (and one commit) serves the keys of many requests, each answered once its own
   * is written.
   */
  private readonly claims: Batcher<IdempotencyClaim, boolean>;
  private readonly completions: Batcher<IdempotencyCompletion, undefined>;
  /** Responses sent and not kept yet: a stopping process keeps them before it disconnects. */
  private readonly keeping = new Set<Promise<void>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly secrets: SecretBox,
  ) {
    this.claims = new Batcher((claims) => claimIdempotencyKeys(pool, claims, ABANDONED_AFTER_MS), {
      maxBatch: 100,
      maxInFlight: 2,
    });
    this.completions = new Batcher(
      async (completions) => {
        await completeIdempotencyKeys(pool, completions);
        return completions.map(() => undefined);
      },
      { maxBatch: 100, maxInFlight: 2 },
    );
  }

  async start(request: IdempotencyClaim): Promise<IdempotentStart> {
    const { scope, key, fingerprint } = request;
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      if (await this.claims.write(request)) {
        return { outcome: "run", finish: (response) => this.keep(request, response) };
      }
      let kept = await findIdempotencyKey(this.pool, scope, key, ABANDONED_AFTER_MS);
      while (
        kept?.state === "in_progress" &&
        !kept.abandoned &&
        kept.fingerprint.equals(fingerprint)
      ) {
        if (Date.now() >= deadline) return { outcome: "in-progress" };
        await sleep(POLL_MS);
        kept = await findIdempotencyKey(this.pool, scope, key, ABANDONED_AFTER_MS);
      }
      // Gone: the request that held the key failed (5xx), so this one may run.
      if (!kept) continue;
      if (!kept.fingerprint.equals(fingerprint)) {
        throw new AppError(
          "validation-failed",
          "This Idempotency-Key was used with another request: send each new request with a new key.",
          [
            {
              location: "header",
              pointer: "/idempotency-key",
              message: "was used with another request",
              code: "idempotency_key_reused",
            },
          ],
        );
      }
      // Still in progress here means abandoned: this request takes the key over.
      if (kept.state === "in_progress") continue;
      const { status, headers, body } = kept;
      return {
        outcome: "replay",
        response: { status, headers, body: this.secrets.decrypt(body, bodyContext(request)) },
      };
    }
  }

  /** Deletes the keys older than 24 hours; returns how many. */
  async deleteExpired(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const count = await deleteExpiredIdempotencyKeys(this.pool, EXPIRY_BATCH);
      deleted += count;
      if (count < EXPIRY_BATCH) return deleted;
    }
  }

  /** Waits for the responses already sent to be kept (or their keys forgotten). */
  async settle(): Promise<void> {
    // Those of requests that answer meanwhile too.
    while (this.keeping.size > 0) await Promise.allSettled([...this.keeping]);
  }

  private keep(request: IdempotencyClaim, response: KeptResponse): Promise<void> {
    const keeping = this.finish(request, response);
    this.keeping.add(keeping);
    void keeping.then(
      () => this.keeping.delete(keeping),
      () => this.keeping.delete(keeping),
    );
    return keeping;
  }

  private async finish(request: IdempotencyClaim, response: KeptResponse): Promise<void> {
    const { scope, key } = request;
    // A server error is not an answer to keep: the client retries, and the retry runs again.
    if (response.status >= 500) {
      await deleteIdempotencyKey(this.pool, scope, key);
      return;
    }
    await this.completions.write({
      scope,
      key,
      status: response.status,
      headers: response.headers,
      body: this.secrets.encrypt(response.body, bodyContext(request)),
    });
  }
}

/** Binds a kept body to its key: one row's ciphertext cannot be replayed under another. */
function bodyContext(request: IdempotencyClaim): string {
  return JSON.stringify(["idempotency-key", request.scope, request.key]);
}
