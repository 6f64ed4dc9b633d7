import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./support/app.js";
import { revalidate } from "./support/revalidate.js";

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const IMMUTABLE = "public, max-age=31536000, immutable";
const REAL_DIST = fileURLToPath(new URL("../../back-office/dist/", import.meta.url));

const INDEX = `<!DOCTYPE html>
<html lang="en">
  <head>
    <script type="module" crossorigin src="/back-office/assets/index-D4rT9x1a.js"></script>
    <link rel="stylesheet" crossorigin href="/back-office/assets/index-B7c2kQ0e.css" />
  </head>
  <body><loyalty-back-office></loyalty-back-office></body>
</html>
`;
// Above compression's 1 KiB threshold.
const SCRIPT = `export const screens = ${JSON.stringify(Array.from({ length: 200 }, (_, i) => `screen-${i}`))};\n`;

let work: string;
let app: TestApp;

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "loyalty-back-office-"));
  const dist = path.join(work, "dist");
  await mkdir(path.join(dist, "assets"), { recursive: true });
  await writeFile(path.join(dist, "index.html"), INDEX);
  await writeFile(path.join(dist, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  await writeFile(path.join(dist, "assets/index-D4rT9x1a.js"), SCRIPT);
  await writeFile(path.join(dist, "assets/index-B7c2kQ0e.css"), ":host { display: block; }\n");
  app = await startTestApp({ env: { BACK_OFFICE_DIR: dist } });
});
afterAll(async () => {
  await app?.close();
  await rm(work, { recursive: true, force: true });
});

function expectSecurityHeaders(response: Response): void {
  expect(response.headers.get("content-security-policy")).toBe(CSP);
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("referrer-policy")).toBe("no-referrer");
  expect(response.headers.get("cross-origin-opener-policy")).toBe("same-origin");
}

describe("the back-office at /back-office/", () => {
  it("answers index.html at its root and at every route of the app, revalidated on each use", async () => {
    for (const route of ["/back-office/", "/back-office/stores/3/rewards", "/back-office/x.js"]) {
      const response = await fetch(`${app.baseUrl}${route}`);
      expect(response.status, route).toBe(200);
      expect(response.headers.get("content-type"), route).toMatch(/^text\/html/);
      expect(response.headers.get("cache-control"), route).toBe("no-cache");
      expectSecurityHeaders(response);
      // Outside the revisioned, cross-origin API.
      expect(response.headers.get("revision"), route).toBeNull();
      expect(response.headers.get("access-control-allow-origin"), route).toBeNull();
      expect(await response.text(), route).toBe(INDEX);
    }
    const head = await fetch(`${app.baseUrl}/back-office/stores/3`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toMatch(/^text\/html/);

    const first = await fetch(`${app.baseUrl}/back-office/`);
    const again = await revalidate(`${app.baseUrl}/back-office/`, first.headers.get("etag")!);
    expect(again.status).toBe(304);
  });

  it("serves the build's hashed assets for a year, immutable, and compressed", async () => {
    const script = await fetch(`${app.baseUrl}/back-office/assets/index-D4rT9x1a.js`, {
      headers: { "accept-encoding": "gzip" },
    });
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/^(text|application)\/javascript/);
    expect(script.headers.get("cache-control")).toBe(IMMUTABLE);
    expect(script.headers.get("content-encoding")).toBe("gzip");
    expectSecurityHeaders(script);
    expect(await script.text()).toBe(SCRIPT);

    const style = await fetch(`${app.baseUrl}/back-office/assets/index-B7c2kQ0e.css`);
    expect(style.headers.get("content-type")).toMatch(/^text\/css/);
    expect(style.headers.get("cache-control")).toBe(IMMUTABLE);
  });

  it("answers 404 for an asset the build did not produce, never the page", async () => {
    for (const asset of ["/back-office/assets/index-00000000.js", "/back-office/assets/"]) {
      const response = await fetch(`${app.baseUrl}${asset}`);
      expect(response.status, asset).toBe(404);
      expect(response.headers.get("content-type"), asset).not.toMatch(/html/);
      expect(response.headers.get("cache-control"), asset).toBe("no-store");
      expectSecurityHeaders(response);
    }
  });

  it("serves the build's other files as they are, revalidated", async () => {
    const icon = await fetch(`${app.baseUrl}/back-office/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toMatch(/^image\/svg\+xml/);
    expect(icon.headers.get("cache-control")).toBe("no-cache");
  });

  it("redirects /back-office and the server's root to /back-office/", async () => {
    const bare = await fetch(`${app.baseUrl}/back-office?store=3`, { redirect: "manual" });
    expect(bare.status).toBe(301);
    expect(new URL(bare.headers.get("location")!, `${app.baseUrl}/back-office`).href).toBe(
      `${app.baseUrl}/back-office/?store=3`,
    );
    const root = await fetch(`${app.baseUrl}/`, { redirect: "manual" });
    expect(root.status).toBe(302);
    expect(new URL(root.headers.get("location")!, `${app.baseUrl}/`).href).toBe(
      `${app.baseUrl}/back-office/`,
    );
  });

  it("takes GET and HEAD only", async () => {
    const response = await fetch(`${app.baseUrl}/back-office/`, { method: "POST", body: "{}" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD");
    expectSecurityHeaders(response);
  });
});

describe("before the back-office is built", () => {
  it("answers 503 saying what to run, warns once at start, and serves it once built", async () => {
    const dist = path.join(work, "unbuilt");
    const unbuilt = await startTestApp({
      env: { BACK_OFFICE_DIR: dist },
      database: app.database,
    });
    try {
      for (const route of ["/back-office/", "/back-office/stores/3", "/back-office/assets/a.js"]) {
        const response = await fetch(`${unbuilt.baseUrl}${route}`);
        expect(response.status, route).toBe(503);
        expect(response.headers.get("cache-control"), route).toBe("no-store");
        expectSecurityHeaders(response);
        const page = await response.text();
        expect(page, route).toContain("pnpm --filter @loyalty/back-office build");
        expect(page, route).not.toContain(dist);
      }
      const warnings = unbuilt.logs.filter((line) => line.includes("back-office is not built"));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, directory: dist });
      // The API is unaffected.
      expect((await fetch(`${unbuilt.baseUrl}/healthz`)).status).toBe(200);

      await mkdir(dist, { recursive: true });
      await writeFile(path.join(dist, "index.html"), INDEX);
      const built = await fetch(`${unbuilt.baseUrl}/back-office/stores/3`);
      expect(built.status).toBe(200);
      expect(await built.text()).toBe(INDEX);
    } finally {
      await unbuilt.close();
    }
  });
});

describe("the built @loyalty/back-office", () => {
  it("is served by default, with every file its page loads", async (context) => {
    if (!existsSync(path.join(REAL_DIST, "index.html"))) {
      // CI builds every package before the tests: there, a missing build is a failure.
      expect(process.env["CI"], `no build in ${REAL_DIST}`).toBeFalsy();
      context.skip(
        `packages/back-office/dist is not built: run pnpm --filter @loyalty/back-office build`,
      );
    }
    const packaged = await startTestApp({ database: app.database });
    try {
      const page = await fetch(`${packaged.baseUrl}/back-office/`);
      expect(page.status).toBe(200);
      expectSecurityHeaders(page);
      const html = await page.text();
      expect(html).toBe(await readFile(path.join(REAL_DIST, "index.html"), "utf8"));

      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts.length).toBeGreaterThan(0);
      for (const [, attributes, body] of scripts) {
        // The Content-Security-Policy allows no inline script.
        expect(attributes, "no inline script").toMatch(/\ssrc="/);
        expect(body!.trim()).toBe("");
      }
      expect(html, "no inline style").not.toMatch(/<style\b|\sstyle="/);

      const types: Record<string, RegExp> = {
        js: /^(text|application)\/javascript/,
        mjs: /^(text|application)\/javascript/,
        css: /^text\/css/,
        svg: /^image\/svg\+xml/,
        png: /^image\/png/,
        ico: /^image\/(x-icon|vnd\.microsoft\.icon)/,
        webmanifest: /^application\/manifest\+json/,
        woff2: /^font\/woff2/,
      };
      // An icon small enough may be inlined, as a data: URL (img-src allows them).
      const references = [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)]
        .map(([, url]) => url!)
        .filter((url) => !url.startsWith("data:"));
      expect(references.length).toBeGreaterThan(0);
      for (const reference of references) {
        const url = new URL(reference, `${packaged.baseUrl}/back-office/`);
        expect(url.origin, `${reference} is the server's own`).toBe(packaged.baseUrl);
        expect(url.pathname, reference).toMatch(/^\/back-office\//);
        const served = await fetch(url);
        expect(served.status, reference).toBe(200);
        const extension = url.pathname.split(".").pop()!;
        expect(types[extension], `a type for .${extension}`).toBeDefined();
        expect(served.headers.get("content-type"), reference).toMatch(types[extension]!);
        expect(served.headers.get("x-content-type-options"), reference).toBe("nosniff");
        if (url.pathname.startsWith("/back-office/assets/")) {
          expect(served.headers.get("cache-control"), reference).toBe(IMMUTABLE);
        }
        expect((await served.arrayBuffer()).byteLength, reference).toBeGreaterThan(0);
      }
      const bundles = references.filter((reference) => /\.(m?js|css)$/.test(reference));
      expect(bundles.length).toBeGreaterThan(0);
      for (const bundle of bundles) expect(bundle, "hashed and immutable").toMatch(/\/assets\//);
    } finally {
      await packaged.close();
    }
  });
});
