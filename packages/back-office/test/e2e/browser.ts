import axe from "axe-core";
import { chromium, type Browser, type Page } from "playwright";

/** Debian's Chromium, with the flags that keep it off the (closed) network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--no-first-run",
    ],
  });
}

export const WIDE = { width: 1280, height: 900 };
export const NARROW = { width: 375, height: 812 };

declare global {
  interface Window {
    /** Every layout shift of the document, recorded from its start (see `openPage`). */
    __layoutShifts: {
      startTime: number;
      value: number;
      hadRecentInput: boolean;
      /** What moved. */
      sources: string[];
    }[];
    reportCspViolation: (violation: string) => Promise<void>;
  }
}

/**
 * What the page did wrong: the CSP's refusals (the `securitypolicyviolation` events and
 * Chromium's "Refused to …" console errors), uncaught errors, and other console errors.
 */
export interface PageProblems {
  csp: string[];
  errors: string[];
}

/**
 * A page of its own context (downloads accepted), 1280 px wide, that records the CSP's
 * refusals, the page's errors and every layout shift from the first byte. The recorders are
 * installed through the DevTools protocol, which the CSP does not govern: the page itself is
 * under the server's CSP, unchanged (`bypassCSP` stays false).
 */
export async function openPage(browser: Browser): Promise<{ page: Page; problems: PageProblems }> {
  const context = await browser.newContext({ viewport: WIDE, acceptDownloads: true });
  const page = await context.newPage();
  // An action that cannot happen fails in seconds, saying what it waited for.
  page.setDefaultTimeout(10_000);
  const problems: PageProblems = { csp: [], errors: [] };
  await page.exposeFunction("reportCspViolation", (violation: string) => {
    problems.csp.push(violation);
  });
  await page.addInitScript(() => {
    window.__layoutShifts = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & {
        value: number;
        hadRecentInput: boolean;
        sources?: {
          node: Node | null;
          previousRect: DOMRectReadOnly;
          currentRect: DOMRectReadOnly;
        }[];
      })[]) {
        const box = (rect: DOMRectReadOnly) =>
          `${Math.round(rect.x)},${Math.round(rect.y)} ${Math.round(rect.width)}×${Math.round(rect.height)}`;
        window.__layoutShifts.push({
          startTime: entry.startTime,
          value: entry.value,
          hadRecentInput: entry.hadRecentInput,
          // Nodes inside shadow roots are not named (null) to a document's observer: their
          // boxes, before and after, say which they were.
          sources: (entry.sources ?? []).map(({ node, previousRect, currentRect }) => {
            const name =
              node instanceof Element
                ? `${node.localName}${[...node.classList].map((name) => `.${name}`).join("")}`
                : "(in a shadow root)";
            const when = entry.hadRecentInput ? "after input: " : "";
            return `${when}${name} ${box(previousRect)} → ${box(currentRect)} at ${Math.round(entry.startTime)} ms`;
          }),
        });
      }
    }).observe({ type: "layout-shift", buffered: true });
    // Captured at the document: the events of elements in shadow roots are composed.
    document.addEventListener(
      "securitypolicyviolation",
      (event) =>
        void window.reportCspViolation(
          `${event.effectiveDirective} refused ${event.blockedURI || "(inline)"} at ${event.sourceFile}:${event.lineNumber}`,
        ),
      true,
    );
  });
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const text = message.text();
    if (/Content Security Policy/i.test(text)) problems.csp.push(text);
    // A refused request (a 4xx the walk provokes on purpose) is logged too: the steps assert
    // on what the page shows for them instead.
    else if (!/Failed to load resource/.test(text)) problems.errors.push(text);
  });
  page.on("pageerror", (error) => problems.errors.push(`${error.name}: ${error.message}`));
  return { page, problems };
}

/**
 * axe-core on the whole document (it walks open shadow roots) with the component tests' rules
 * (test/support/axe.ts). axe is evaluated through the DevTools protocol: an inline script
 * would be refused by the CSP, and the page's policy must stay the real one.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  const loaded = await page.evaluate(() => "axe" in window);
  if (!loaded) await page.evaluate(axe.source);
  return page.evaluate(async () => {
    const results = await (window as unknown as { axe: typeof axe }).axe.run(document, {
      rules: { "skip-link": { enabled: false } },
      runOnly: {
        type: "tag",
        values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"],
      },
    });
    return results.violations.map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes
          .map((node) => JSON.stringify(node.target))
          .join(", ")})`,
    );
  });
}

/**
 * What sticks out of the viewport sideways: nothing when the page does not scroll sideways,
 * else the elements (shadow roots walked) past its right edge whose parent is not.
 */
export function horizontalOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width) return [];
    const describe = (element: Element) => {
      const classes = [...element.classList].map((name) => `.${name}`).join("");
      const box = element.getBoundingClientRect();
      return `${element.localName}${classes} (${Math.round(box.left)}–${Math.round(box.right)} px)`;
    };
    // Its containers (shadow hosts included) with their boxes: which one did not shrink.
    const ancestry = (element: Element) => {
      const chain: string[] = [];
      let node: Node | null = element;
      while (chain.length < 6 && node) {
        node = node.parentNode instanceof ShadowRoot ? node.parentNode.host : node.parentNode;
        if (node instanceof Element) chain.push(describe(node));
      }
      return chain.join(" < ");
    };
    const found: string[] = [];
    // An element past the edge whose parent is not: where the overflow starts.
    const walk = (root: Document | ShadowRoot | Element, parentFits: boolean) => {
      for (const element of root.children) {
        const right = element.getBoundingClientRect().right;
        const fits = right <= width + 0.5;
        if (!fits && parentFits) found.push(`${describe(element)}, in ${ancestry(element)}`);
        // Inside an element that scrolls on its own, overflow is that region's business.
        if (/auto|scroll|hidden|clip/.test(getComputedStyle(element).overflowX)) continue;
        if (element.shadowRoot) walk(element.shadowRoot, fits);
        walk(element, fits);
      }
    };
    walk(document, true);
    return found.length
      ? found.slice(0, 10)
      : [`(the page is ${document.documentElement.scrollWidth} px wide)`];
  });
}

export interface ScreenAudit {
  wide: string[];
  narrow: string[];
  /** What overflows the viewport at 375 px (see `horizontalOverflow`). */
  narrowOverflow: string[];
}

/** axe at 1280 px and at 375 px (and the overflow there), then back to 1280 px. */
export async function auditScreen(page: Page): Promise<ScreenAudit> {
  const wide = await axeViolations(page);
  await page.setViewportSize(NARROW);
  // Charts follow their box's new width a few frames later (a ResizeObserver), later still on
  // a busy machine: only what still overflows after 3 seconds counts.
  let narrowOverflow = await horizontalOverflow(page);
  for (let waited = 0; narrowOverflow.length > 0 && waited < 3000; waited += 100) {
    await page.waitForTimeout(100);
    narrowOverflow = await horizontalOverflow(page);
  }
  const narrow = await axeViolations(page);
  await page.setViewportSize(WIDE);
  await nextPaint(page);
  return { wide, narrow, narrowOverflow };
}

/** Two frames: what changed is laid out and painted. */
export function nextPaint(page: Page): Promise<void> {
  return page.evaluate(
    () =>
      new Promise<void>((resolve) =>
        requestAnimationFrame(() => requestAnimationFrame(() => resolve())),
      ),
  );
}

/** The page's clock, to mark where a screen's visit starts. */
export function now(page: Page): Promise<number> {
  return page.evaluate(() => performance.now());
}

export interface LayoutShift {
  /** As Chrome's CLS counts: shifts within 500 ms of an input are left out. */
  cls: number;
  /** Every shift, those right after the click or key that opened the screen included. */
  all: number;
  /** The elements that moved, for a report. */
  sources: string[];
}

/** The layout shifts since `since` (a `now()`), summed. */
export async function layoutShiftSince(page: Page, since: number): Promise<LayoutShift> {
  await nextPaint(page);
  const shifts = await page.evaluate(
    (start) => window.__layoutShifts.filter((shift) => shift.startTime >= start),
    since,
  );
  const sum = (list: typeof shifts) => list.reduce((total, shift) => total + shift.value, 0);
  return {
    cls: sum(shifts.filter((shift) => !shift.hadRecentInput)),
    all: sum(shifts),
    sources: [...new Set(shifts.flatMap((shift) => shift.sources))],
  };
}
