import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import compression from "compression";
import express, { Router, type RequestHandler, type Response } from "express";
import type { Logger } from "pino";

/** Where the back-office is served: the web app's routes live under it. */
const BACK_OFFICE_PATH = "/back-office";

const BUILD_COMMAND = "pnpm --filter @loyalty/back-office build";

/**
 * The web app loads only its own files and calls only this server's API; it inlines nothing, so
 * no `'unsafe-inline'` is needed. Images may come from anywhere over HTTPS: the widget banners
 * a merchant configures are on their own hosts.
 */
const BACK_OFFICE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The `dist/` of the installed `@loyalty/back-office` (its package.json is the one file it
 * exports); undefined when the package is not installed.
 */
function packagedDirectory(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve("@loyalty/back-office/package.json");
    return path.join(path.dirname(manifest), "dist");
  } catch {
    return undefined;
  }
}

function securityHeaders(res: Response): void {
  res.setHeader("Content-Security-Policy", BACK_OFFICE_CSP);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
  res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
}

/** Says what to run, not where: the page is public, the log line names the directory. */
const NOT_BUILT_PAGE = `<!DOCTYPE html>
<html lang="en">
  <head><meta charset="utf-8" /><title>Back-office not built</title></head>
  <body>
    <h1>The back-office is not built</h1>
    <p>Run <code>${BUILD_COMMAND}</code>, then reload this page.</p>
  </body>
</html>
`;

function notBuilt(res: Response): void {
  res.setHeader("Cache-Control", "no-store");
  res.status(503).type("html").send(NOT_BUILT_PAGE);
}

/**
 * The back-office web app under /back-office/: public files (the API it calls authenticates
 * every request), so no revision, CORS, rate limit or access log line.
 *
 * - `assets/` holds the build's content-hashed files: cached for a year, immutable; a name the
 *   build did not produce is 404, never the page (a script answered with HTML breaks the app).
 * - Other files of the build are revalidated on every use; any other path is a route of the
 *   app (a deep link, a reload) and answers index.html.
 * - Until the app is built (a checkout run from its sources), 503 with the command to run: the
 *   directory is looked at again on each request, so building it is enough.
 *
 * Every request of the API passes this layer first: one path test sends it on.
 */
export function backOfficeRoutes(directory: string | undefined, logger: Logger): RequestHandler {
  const root = directory ?? packagedDirectory();
  const index = root === undefined ? undefined : path.join(root, "index.html");
  let built = index !== undefined && existsSync(index);
  if (!built) {
    logger.warn(
      { directory: root ?? null },
      `the back-office is not built: ${BACK_OFFICE_PATH}/ answers 503 until \`${BUILD_COMMAND}\``,
    );
  }

  const router = Router();
  // Compressed here only: the storefront's reads and the OpenAPI document encode their own.
  router.use(compression());
  if (root !== undefined) {
    router.use(
      `${BACK_OFFICE_PATH}/assets`,
      express.static(path.join(root, "assets"), {
        index: false,
        redirect: false,
        maxAge: "1y",
        immutable: true,
      }),
      (_req, res) => {
        res.setHeader("Cache-Control", "no-store");
        res.status(404).type("text").send("Not found\n");
      },
    );
    router.use(
      BACK_OFFICE_PATH,
      (_req, res, next) => {
        res.setHeader("Cache-Control", "no-cache");
        next();
      },
      express.static(root, { index: false, redirect: false, cacheControl: false }),
      (_req, res, next) => {
        res.sendFile("index.html", { root, cacheControl: false }, (error?: Error) => {
          if (!error || res.headersSent) return;
          // Removed since (a build under way): as before the first build.
          if ((error as NodeJS.ErrnoException).code === "ENOENT") {
            built = false;
            notBuilt(res);
            return;
          }
          next(error);
        });
      },
    );
  }

  return (req, res, next) => {
    const read = req.method === "GET" || req.method === "HEAD";
    // A person who opens the server's address is looking for the back-office: the API has
    // nothing at its root. Temporary, so that an operator may put something else there later.
    if (req.path === "/" && read) {
      res.redirect(302, `${BACK_OFFICE_PATH.slice(1)}/`);
      return;
    }
    if (req.path !== BACK_OFFICE_PATH && !req.path.startsWith(`${BACK_OFFICE_PATH}/`)) {
      next();
      return;
    }
    securityHeaders(res);
    if (!read) {
      res.setHeader("Allow", "GET, HEAD");
      res.status(405).type("text").send("Method not allowed\n");
      return;
    }
    // The app's relative URLs and its router expect the trailing slash.
    if (req.path === BACK_OFFICE_PATH) {
      const query = req.originalUrl.indexOf("?");
      const search = query === -1 ? "" : req.originalUrl.slice(query);
      res.redirect(301, `${BACK_OFFICE_PATH.slice(1)}/${search}`);
      return;
    }
    if (!built) built = index !== undefined && existsSync(index);
    if (!built) {
      notBuilt(res);
      return;
    }
    router(req, res, next);
  };
}
