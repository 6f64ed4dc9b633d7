import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { Request, Response } from "express";

/** The address of the script before its hash is known (not built yet), and for old pages. */
export const UNHASHED_URL = "/assets/loyalty-widgets.js";

/** The widgets' script as the store serves it: under a URL named by its content, compressed. */
export interface WidgetsScript {
  /** `/assets/loyalty-widgets.<first 10 hex digits of its SHA-256>.js`. */
  url: string;
  bodies: { br: Buffer; gzip: Buffer; identity: Buffer };
}

/**
 * Reads the built script once and compresses it at the highest levels (brotli 11 takes a
 * quarter of a second for ~90 KB: once, not per request). Undefined while it is not built.
 */
export function loadWidgetsScript(file: string): WidgetsScript | undefined {
  if (!existsSync(file)) return undefined;
  const identity = readFileSync(file);
  const hash = createHash("sha256").update(identity).digest("hex").slice(0, 10);
  return {
    url: `/assets/loyalty-widgets.${hash}.js`,
    bodies: {
      br: brotliCompressSync(identity, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
        },
      }),
      gzip: gzipSync(identity, { level: constants.Z_BEST_COMPRESSION }),
      identity,
    },
  };
}

/**
 * Sends the script in the best encoding the browser accepts. Brotli first whenever it is
 * accepted at all: `req.acceptsEncodings` breaks ties by the browser's order, and browsers
 * list gzip first.
 */
export function sendWidgetsScript(
  req: Request,
  res: Response,
  script: WidgetsScript,
  cacheControl: string,
): void {
  const encoding = (["br", "gzip"] as const).find((each) => req.acceptsEncodings(each) === each);
  res.vary("Accept-Encoding").type("text/javascript").set("Cache-Control", cacheControl);
  if (encoding) res.set("Content-Encoding", encoding);
  // res.send sets the ETag of these bytes and answers 304 to a matching If-None-Match.
  res.send(script.bodies[encoding ?? "identity"]);
}
