import { describe, expect, test } from "vitest";
import { commands } from "vitest/browser";
import { STORE_SCREENS } from "../src/app/routes.js";

/*
 * What `vite build` wrote (the test script builds first), as the server will serve it under a
 * strict Content-Security-Policy: `script-src 'self'; style-src 'self'`.
 */

const indexHtml = () => commands.readFile("dist/index.html");
const manifest = async () =>
  JSON.parse(await commands.readFile("dist/.vite/manifest.json")) as Record<
    string,
    { file: string; isEntry?: boolean; isDynamicEntry?: boolean; imports?: string[] }
  >;

describe("the build", () => {
  test("index.html inlines no script and no style, and loads everything from /back-office/assets/", async () => {
    const html = await indexHtml();
    const document = new DOMParser().parseFromString(html, "text/html");
    for (const script of document.querySelectorAll("script")) {
      expect(script.getAttribute("src")).toMatch(/^\/back-office\/assets\/[\w.-]+\.js$/);
      expect(script.textContent).toBe("");
    }
    expect(document.querySelectorAll("script")).toHaveLength(1);
    expect(document.querySelectorAll("style, [style]")).toHaveLength(0);
    expect(html).not.toMatch(/\son\w+=/i);
    for (const link of document.querySelectorAll("link[href]")) {
      expect(link.getAttribute("href")).toMatch(/^\/back-office\/assets\//);
    }
    expect(document.querySelector("bo-app")).not.toBeNull();
  });

  test("each screen is a chunk of its own, loaded on first visit", async () => {
    const chunks = await manifest();
    const entry = Object.values(chunks).find((chunk) => chunk.isEntry);
    const screens = [
      ...STORE_SCREENS.map((screen) => screen.tag.replace(/^bo-/, "")),
      "sign-in-screen",
      "store-picker-screen",
    ];
    for (const screen of screens) {
      const key = Object.keys(chunks).find((path) => path.endsWith(`/${screen}.ts`));
      expect(key, `${screen} has no chunk`).toBeDefined();
      expect(chunks[key!]?.isDynamicEntry).toBe(true);
      expect(entry?.imports ?? []).not.toContain(key);
    }
  });

  test("runs under the server's Content-Security-Policy: nothing refused, no error", async () => {
    const report = await commands.openBuiltApp("/back-office/stores/42/overview");
    expect(report).toEqual({ heading: "Sign in", problems: [] });
  });

  test("no template sets a style attribute (the CSP refuses it: use classes or styleMap)", async () => {
    expect(
      await commands.sourceLinesMatching(String.raw`\sstyle=(["']|\$\{(?!styleMap\())`),
    ).toEqual([]);
  });
});
