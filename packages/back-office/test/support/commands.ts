import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserCommand } from "vitest/node";
import "@vitest/browser-playwright";

const packageRoot = fileURLToPath(new URL("../..", import.meta.url));

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/**
 * Runs in Node, called from the test page: the lines of src/ (tests aside) that match
 * `pattern`, as `file:line: text`.
 */
const sourceLinesMatching: BrowserCommand<[pattern: string]> = (_context, pattern) => {
  const regexp = new RegExp(pattern);
  return sourceFiles(join(packageRoot, "src")).flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, index) =>
        regexp.test(line) ? [`${relative(packageRoot, file)}:${index + 1}: ${line.trim()}`] : [],
      ),
  );
};

/** The policy the API server sends with the back-office (packages/server). */
export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; " +
  "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const TYPES: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".css": "text/css",
  ".svg": "image/svg+xml",
};

export interface BuiltAppReport {
  /** The h1 the page showed. */
  heading: string;
  /** What the CSP refused, and the page's errors. */
  problems: string[];
}

/**
 * Runs in Node: serves dist/ as the server does (index.html for every /back-office/* path,
 * with the CSP), opens it in a new page of the test browser, waits for its h1, and reports
 * what the CSP refused and what failed.
 */
const openBuiltApp: BrowserCommand<[path: string]> = async (context, path) => {
  const dist = join(packageRoot, "dist");
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname.startsWith("/admin/")) {
      response.writeHead(401, { "content-type": "application/problem+json" });
      response.end("{}");
      return;
    }
    let file = join(dist, url.pathname.replace(/^\/back-office\//, ""));
    if (!url.pathname.startsWith("/back-office/assets/") || !existsSync(file)) {
      file = join(dist, "index.html");
    }
    response.writeHead(200, {
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      "content-security-policy": CONTENT_SECURITY_POLICY,
    });
    response.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const page = await context.context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") {
      problems.push(`${message.type()}: ${message.text()}`);
    }
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  try {
    await page.addInitScript(() => {
      const refused: string[] = [];
      (globalThis as unknown as { cspRefused: string[] }).cspRefused = refused;
      document.addEventListener("securitypolicyviolation", (event) =>
        refused.push(`CSP refused ${event.violatedDirective} in ${event.sourceFile}`),
      );
    });
    const { port } = server.address() as AddressInfo;
    await page.goto(`http://127.0.0.1:${port}${path}`);
    const heading = page.getByRole("heading", { level: 1 });
    await heading.waitFor();
    // The screen's chunks, the contracts among them, are evaluated by now.
    await page.waitForLoadState("networkidle");
    problems.push(
      ...(await page.evaluate(
        () => (globalThis as unknown as { cspRefused: string[] }).cspRefused,
      )),
    );
    return { heading: (await heading.textContent()) ?? "", problems } satisfies BuiltAppReport;
  } finally {
    await page.close();
    server.close();
  }
};

export const commands = { sourceLinesMatching, openBuiltApp };

declare module "vitest/browser" {
  interface BrowserCommands {
    sourceLinesMatching: (pattern: string) => Promise<string[]>;
    openBuiltApp: (path: string) => Promise<BuiltAppReport>;
  }
}
