import type { Response } from "express";
import type { CachedSection, MaybePromise } from "../modules/storefront/storefront.cache.js";
import { AppError } from "../errors.js";
import { Reply } from "./operation.js";

/** Sends a JSON body as a 200 that browsers and shared caches may keep, tagged `etag`. */
export type SendCacheable = (res: Response, etag: string, json: string | Buffer) => void;

/**
 * Storefront reads: `Cache-Control: public, max-age=<maxAgeSeconds>` and an ETag, with 304 when
 * the request's If-None-Match holds it. Only successes go through here.
 *
 * The caller gives the etag (a cached section's, computed when it was loaded, or one made of
 * the few values a small body holds), so Express does not hash every body it sends. It must be
 * derived from the content, never from a counter of this process: every process behind the
 * load balancer must give equal content an equal etag. Express's own freshness check
 * (req.fresh, in res.send) then answers 304, with the If-None-Match lists, weak comparison and
 * `*` of RFC 9110.
 */
export function cacheableJson(maxAgeSeconds: number): SendCacheable {
  const cacheControl = `public, max-age=${maxAgeSeconds}`;
  return (res, etag, json) => {
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader("Cache-Control", cacheControl);
    res.setHeader("ETag", etag);
    // The revision header changes the response's headers (the echoed revision, Deprecation and
    // Sunset): a shared cache must not hand one revision's response to another.
    res.vary("revision");
    res.send(json);
  };
}

/**
 * The answer of a storefront read whose whole body is a cached section of JSON, encoded once
 * when it was loaded (reward list, widget configurations): 200 cacheable, or not-found when no
 * store has the domain. Synchronous when the section was in memory: the hot path awaits
 * nothing.
 */
export function cachedSectionReply(
  maxAgeSeconds: number,
): (section: MaybePromise<CachedSection<Buffer> | undefined>) => Reply | Promise<Reply> {
  const sendCacheable = cacheableJson(maxAgeSeconds);
  const reply = (loaded: CachedSection<Buffer> | undefined) => {
    if (!loaded) throw new AppError("not-found", "No store has this domain.");
    return new Reply((res) => sendCacheable(res, loaded.etag, loaded.value));
  };
  return (section) => (section instanceof Promise ? section.then(reply) : reply(section));
}
