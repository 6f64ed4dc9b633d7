import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { gzipSync } from "node:zlib";
import { LATEST_REVISION, supportedRevisions, type ApiRevision } from "@loyalty/shared-types";
import { Router, type RequestHandler, type Response } from "express";
import { AppError } from "../errors.js";
import type { AppContext } from "../runtime.js";
import { buildOpenApiDocument } from "./openapi.document.js";

// absolute-path.js alone: the package's main module would load Swagger UI's browser bundle
// into the server process.
const swaggerUiDirectory = (
  createRequire(import.meta.url)("swagger-ui-dist/absolute-path.js") as () => string
)();

/**
 * The files of swagger-ui-dist the page loads. Its own index.html and initializer are left
 * out: they point at the petstore example.
 */
const SWAGGER_UI_ASSETS = new Set([
  "swagger-ui.css",
  "index.css",
  "swagger-ui-bundle.js",
  "swagger-ui-standalone-preset.js",
  "favicon-32x32.png",
  "favicon-16x16.png",
]);

const INITIALIZER = "loyalty-docs.js";

/**
 * Relative URLs throughout, so that the page also works behind a proxy that serves the API
 * under a prefix. The script is a file of its own: the Content-Security-Policy allows no inline
 * script.
 */
const DOCS_PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Loyalty Points API reference</title>
    <link rel="stylesheet" href="swagger-ui.css" />
    <link rel="stylesheet" href="index.css" />
    <link rel="icon" type="image/png" href="favicon-32x32.png" sizes="32x32" />
    <link rel="icon" type="image/png" href="favicon-16x16.png" sizes="16x16" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="swagger-ui-bundle.js"></script>
    <script src="swagger-ui-standalone-preset.js"></script>
    <script src="${INITIALIZER}"></script>
  </body>
</html>
`;

function initializer(revisions: readonly ApiRevision[]): string {
  const urls = revisions.map((revision) => ({
    url: `../openapi.json?revision=${revision}`,
    name: `Revision ${revision}`,
  }));
  return `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    urls: ${JSON.stringify(urls)},
    "urls.primaryName": ${JSON.stringify(`Revision ${LATEST_REVISION}`)},
    dom_id: "#swagger-ui",
    deepLinking: true,
    // The public validator badge would send the document to a third party.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: "StandaloneLayout",
  });
});
`;
}

/** Swagger UI injects style attributes and draws its icons as data: images; nothing else. */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

function securityHeaders(res: Response): void {
  res.setHeader("Content-Security-Policy", DOCS_CSP);
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "no-referrer");
}

interface Encoded {
  json: Buffer;
  gzip: Buffer;
  etag: string;
}

/**
 * GET /openapi.json: the document of `?revision=` (a supported revision; anything else is 400
 * unknown-api-revision, as a problem object), else of the latest revision. Each is built on
 * first request and kept, encoded once. Caches revalidate with the ETag, so a deployment's new
 * document is seen at once.
 *
 * GET /docs/: Swagger UI on that document, with a selector of the revisions.
 *
 * Every request of the API passes this layer first: one path test sends it on, rather than a
 * walk through the docs' routes.
 */
export function openApiRoutes(context: AppContext): RequestHandler {
  const { config, clock } = context;
  const router = Router();
  const documents = new Map<ApiRevision, Encoded>();

  const encoded = (revision: ApiRevision): Encoded => {
    let entry = documents.get(revision);
    if (!entry) {
      const json = Buffer.from(
        JSON.stringify(buildOpenApiDocument({ revision, problemBaseUri: config.problemBaseUri })),
      );
      const hash = createHash("sha256").update(json).digest("base64url").slice(0, 27);
      entry = { json, gzip: gzipSync(json), etag: `"${hash}"` };
      documents.set(revision, entry);
    }
    return entry;
  };

  router.get("/openapi.json", (req, res) => {
    const supported = supportedRevisions(clock());
    const requested = req.query.revision;
    let revision = LATEST_REVISION;
    if (requested !== undefined) {
      if (typeof requested !== "string" || !(supported as string[]).includes(requested)) {
        const shown = typeof requested === "string" ? ` ${requested.slice(0, 40)}` : "";
        throw new AppError(
          "unknown-api-revision",
          `No OpenAPI document for the revision${shown}. Supported revisions: ${supported.join(", ")}.`,
        );
      }
      revision = requested as ApiRevision;
    }
    const document = encoded(revision);
    const gzip = req.acceptsEncodings("gzip", "identity") === "gzip";
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader("Cache-Control", "no-cache");
    res.vary("Accept-Encoding");
    // Each encoding is its own representation, with its own validator.
    res.setHeader("ETag", gzip ? `${document.etag.slice(0, -1)}-gz"` : document.etag);
    if (gzip) res.setHeader("Content-Encoding", "gzip");
    res.send(gzip ? document.gzip : document.json);
  });

  router.get("/docs", (req, res) => {
    // The page's relative URLs resolve against /docs/ only.
    if (!req.path.endsWith("/")) {
      res.redirect(301, "docs/");
      return;
    }
    securityHeaders(res);
    res.setHeader("Cache-Control", "no-cache");
    res.type("html").send(DOCS_PAGE);
  });

  router.get(`/docs/${INITIALIZER}`, (_req, res) => {
    securityHeaders(res);
    res.setHeader("Cache-Control", "no-cache");
    res.type("js").send(initializer(supportedRevisions(clock())));
  });

  router.get("/docs/:asset", (req, res, next) => {
    const { asset } = req.params;
    if (!SWAGGER_UI_ASSETS.has(asset)) {
      next();
      return;
    }
    securityHeaders(res);
    // With `root`, only the asset's own name is checked for dot segments: pnpm installs the
    // package under node_modules/.pnpm, which an absolute path would be refused for.
    res.sendFile(asset, { root: swaggerUiDirectory, maxAge: "1d" });
  });

  return (req, res, next) => {
    if (req.path === "/openapi.json" || req.path.startsWith("/docs")) {
      router(req, res, next);
      return;
    }
    next();
  };
}
