import axe from "axe-core";
import { expect } from "vitest";

/**
 * axe-core on `root` (the document by default: axe walks open shadow roots, so run it on the
 * document or a host element, never inside a shadow root): no violation of WCAG 2.2 A/AA, nor
 * of axe's best practices (landmarks, one h1, headings in order).
 */
export async function expectNoAxeViolations(root: Document | Element = document): Promise<void> {
  const results = await axe.run(root, {
    // axe looks for a skip link's target (#main) in the document only, never in the shadow
    // root that holds it: shell.test.ts checks that the link works.
    rules: { "skip-link": { enabled: false } },
    runOnly: {
      type: "tag",
      values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"],
    },
  });
  const violations = results.violations.map(
    (violation) =>
      `${violation.id}: ${violation.help} (${violation.nodes.map((node) => JSON.stringify(node.target)).join(", ")})`,
  );
  expect(violations).toEqual([]);
}
