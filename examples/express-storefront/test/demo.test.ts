/**
 * The demo as a newcomer runs it: `pnpm start`'s launcher on a machine without DATABASE_URL
 * (so an embedded PostgreSQL, initialised on the first start), then a shopper in Chromium: a
 * product page's points, a checkout credited on the account page, a claim's code, a refund's
 * deduction; then Ctrl-C and a second start that finds everything again.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import getPort from "get-port";
import { chromium, type Browser, type Page } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customerIdFor } from "../src/store-data.js";

const LAUNCHER = fileURLToPath(new URL("../scripts/start-demo.ts", import.meta.url));
const EMAIL = "camille@example.com";

/** Whether something accepts connections on this port. */
async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

interface Demo {
  child: ChildProcess;
  output: () => string;
}

/** Runs the launcher as `pnpm start` does, until it says the platform is running. */
async function startDemo(env: NodeJS.ProcessEnv): Promise<Demo> {
  const child = spawn(
    process.execPath,
    ["--conditions=@loyalty/source", "--import", "tsx", LAUNCHER],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the demo did not start:\n${output}`)),
      150_000,
    );
    const check = () => {
      if (output.includes("The loyalty platform is running")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the demo exited (${code}):\n${output}`));
    });
  });
  return { child, output: () => output };
}

/** Ctrl-C: resolves with the exit code. */
async function interrupt(demo: Demo): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => demo.child.once("exit", resolve));
  demo.child.kill("SIGINT");
  return exited;
}

describe("the demo storefront, started with pnpm start", () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let demo: Demo;
  let browser: Browser;
  let page: Page;
  let store: string;
  let api: string;
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "loyalty-demo-"));
    // As root, the embedded PostgreSQL runs as a user of its own, who must reach its directory.
    await chmod(dataDir, 0o755);
    const [apiPort, storePort, postgresPort] = [await getPort(), await getPort(), await getPort()];
    env = { ...process.env, LOYALTY_DATA_DIR: dataDir, LOG_LEVEL: "warn" };
    // A fresh machine: no database server, no master key.
    delete env["DATABASE_URL"];
    delete env["LOYALTY_MASTER_KEY"];
    Object.assign(env, {
      PORT: String(apiPort),
      STOREFRONT_PORT: String(storePort),
      EMBEDDED_POSTGRES_PORT: String(postgresPort),
    });
    store = `http://localhost:${storePort}`;
    api = `http://localhost:${apiPort}`;
    demo = await startDemo(env);
    browser = await chromium.launch({
      executablePath: process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
    });
    page = await browser.newPage();
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    page.on("pageerror", (error) => consoleErrors.push(error.message));
  });

  afterAll(async () => {
    await browser?.close();
    if (demo?.child.exitCode === null) await interrupt(demo);
    await rm(dataDir, { recursive: true, force: true });
  });

  /** The account page's sign-in form, as a shopper fills it. */
  async function signIn(email: string, firstName: string): Promise<void> {
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("First name").fill(firstName);
    await page.getByRole("button", { name: "Sign in" }).click();
  }

  it("prints the storefront's and the API's addresses", () => {
    expect(demo.output()).toContain(`Demo storefront   ${store}`);
    expect(demo.output()).toContain(`Loyalty API       ${api}`);
    expect(demo.output()).toContain(`Loaded the demo store for ${store}.`);
  });

  it("prints the back-office's address and its demo admin, who signs in", async () => {
    const line = new RegExp(
      `Back-office {7}${api}/back-office/ {3}\\(sign in as (admin@demo\\.loyalty\\.test) / (\\S+)\\)`,
    ).exec(demo.output());
    expect(line, demo.output()).not.toBeNull();
    const [, email, password] = line!;
    const app = await fetch(`${api}/back-office/`);
    expect(app.status).toBe(200);
    expect(app.headers.get("content-type")).toMatch(/^text\/html/);
    const token = await fetch(`${api}/admin/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    });
    expect(token.status).toBe(200);
    // An admin of the demo store alone.
    expect(((await token.json()) as { storeId: unknown }).storeId).toEqual(expect.any(Number));
  });

  it("shows a product's points on its page, following the size chosen", async () => {
    await page.goto(`${store}/products/1002`);
    // Coffee earns 2 points per euro: 250 g at 12.50 €.
    await page.getByText("Earn 25 points with this product").waitFor();
    await page.getByLabel("1 kg").check();
    await page.getByText("Earn 84 points with this product").waitFor();
    await page.getByLabel("Quantity").fill("5");
    await page.getByRole("button", { name: "Add to cart" }).click();
    await page.waitForURL(`${store}/cart`);
    await page.getByText("This cart earns you 420 points").waitFor();
  });

  it("credits a checkout's points, shown on the account page", async () => {
    await page.goto(`${store}/products/1001`);
    // The espresso machine earns 50 points a unit, whatever its price.
    await page.getByText("Earn 50 points with this product").waitFor();
    await page.getByRole("button", { name: "Add to cart" }).click();
    await page.getByText("This cart earns you 470 points").waitFor();

    await page.getByRole("link", { name: "Sign in to check out" }).click();
    await signIn(EMAIL, "Camille");
    await page.waitForURL(`${store}/cart`);
    await page.getByRole("button", { name: "Place the order (€459.00)" }).click();
    await page.waitForURL(/\/account\?placed=/);
    await page.getByText("Order #1001 is placed").waitFor();
    // The notice is where the page scrolled to (#orders), not above it out of sight.
    const notice = page.locator('#orders [role="status"]');
    expect(await notice.textContent()).toContain("Order #1001 is placed");
    const inView = await notice.evaluate((element) => {
      const box = element.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= element.ownerDocument.documentElement.clientHeight;
    });
    expect(inView).toBe(true);

    // The worker credits the order a moment later: the shopper reloads until it shows.
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator('loyalty-program-presentation [part="balance"]').textContent();
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe("470 points");
    await page.getByText("Order #1001").first().waitFor();

    // The store's server rendered the customer's id and hash; never its reference or key.
    const widget = page.locator("loyalty-program-presentation");
    expect(await widget.getAttribute("customer-id")).toBe(String(customerIdFor(EMAIL)));
    expect(await widget.getAttribute("customer-hash")).toMatch(/^[0-9a-f]{128}$/);
    const kept = JSON.parse(await readFile(path.join(dataDir, "demo-store.json"), "utf8")) as {
      reference: string;
      apiKey: string;
    };
    const html = await page.content();
    expect(html).not.toContain(kept.apiKey);
    expect(html).not.toContain(kept.reference);
  });

  it("shows a reward's code once claimed, and the balance spent", async () => {
    const programme = page.locator("loyalty-program-presentation");
    // Rewards come cheapest first: free shipping, 300 points.
    await programme.getByRole("button", { name: /Claim/ }).first().click();
    // Nothing is spent before the shopper confirms.
    await programme.getByRole("button", { name: "Confirm", exact: true }).click();
    const code = programme.getByText(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/).first();
    await code.waitFor();
    await expect.poll(() => programme.locator('[part="balance"]').textContent()).toBe("170 points");
  });

  it("deducts a refunded item's points, credit note after credit note", async () => {
    const order = page.locator('[data-order="#1001"]');
    const balance = async () => {
      await page.reload();
      return page.locator('loyalty-program-presentation [part="balance"]').textContent();
    };
    // One of the five 1 kg bags (84 points) goes back: a credit note declared with the SDK.
    await order.getByRole("button", { name: "Return one" }).first().click();
    await page.waitForURL(/\/account\?refunded=/);
    await page.getByText("Refund of order #1001 declared.").waitFor();
    await expect(order.locator(".status").textContent()).resolves.toBe("Partly refunded");
    await expect.poll(balance, { timeout: 20_000, interval: 500 }).toBe("86 points");
    // A second bag: the store declares two returned so far (cumulative), 84 more points.
    await order.getByRole("button", { name: "Return one" }).first().click();
    await page.getByText("Refund of order #1001 declared.").waitFor();
    await expect(order.getByText("(2 returned)").count()).resolves.toBe(1);
    await expect.poll(balance, { timeout: 20_000, interval: 500 }).toBe("2 points");
    expect(consoleErrors).toEqual([]);
  });

  it("stops everything on Ctrl-C, and finds it all again on the next start", async () => {
    const postmaster = path.join(dataDir, "postgres", "postmaster.pid");
    expect(existsSync(postmaster)).toBe(true);
    expect(await interrupt(demo)).toBe(0);
    expect(demo.output()).toContain("Stopped.");
    // Nothing left running: the storefront, the API and the database are gone.
    expect(await listening(Number(env["STOREFRONT_PORT"]))).toBe(false);
    expect(await listening(Number(env["PORT"]))).toBe(false);
    expect(await listening(Number(env["EMBEDDED_POSTGRES_PORT"]))).toBe(false);
    expect(existsSync(postmaster)).toBe(false);

    const backOffice = /Back-office .*\n/.exec(demo.output())?.[0];
    demo = await startDemo(env);
    expect(demo.output()).not.toContain("Loaded the demo store");
    // The same admin, kept with the store.
    expect(demo.output()).not.toContain("Created the back-office admin");
    expect(demo.output()).toContain(backOffice);
    await page.goto(`${store}/account`);
    await expect
      .poll(() => page.locator('loyalty-program-presentation [part="balance"]').textContent())
      .toBe("2 points");
    await expect(page.locator('[data-order="#1001"] .status').textContent()).resolves.toBe(
      "Partly refunded",
    );
  });

  it("places one order for a cart submitted twice", async () => {
    await page.goto(`${store}/products/1006`);
    await page.getByRole("button", { name: "Add to cart" }).click();
    await page.waitForURL(`${store}/cart`);
    // A double click, or a reload of the checkout: the same cart twice, at once.
    const submit = () => page.request.post(`${store}/checkout`, { maxRedirects: 0 });
    const [first, second] = await Promise.all([submit(), submit()]);
    expect(first.headers()["location"]).toBe(second.headers()["location"]);
    await page.goto(`${store}/account`);
    await expect(page.locator("[data-order]").count()).resolves.toBe(2);
  });

  it("welcomes an invited friend with a code, and credits the referrer once the friend orders", async () => {
    const balance = () =>
      page.locator('loyalty-program-presentation [part="balance"]').textContent();
    // 2 points, and 14 for the mug.
    await expect
      .poll(
        async () => {
          await page.goto(`${store}/account`);
          return balance();
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe("16 points");
    await page.getByLabel("Their email").fill("dominique@example.com");
    await page.getByLabel("Their first name").fill("Dominique");
    await page.getByRole("button", { name: "Send the invitation" }).click();
    await page.getByText("Invitation sent to dominique@example.com.").waitFor();

    // Without SMTP_URL the invitation is written to the data directory, as a real message.
    const mailDir = path.join(dataDir, "mail");
    let link: string | undefined;
    await expect
      .poll(
        async () => {
          for (const file of await readdir(mailDir).catch(() => [])) {
            const message = (await readFile(path.join(mailDir, file), "utf8"))
              .replace(/=\r?\n/g, "")
              .replace(/=3D/g, "=");
            link = /https?:\/\/[^\s"<>]+loyalty_referral=[A-Za-z0-9_-]+/.exec(message)?.[0];
            if (link) return true;
          }
          return false;
        },
        { timeout: 20_000, interval: 250 },
      )
      .toBe(true);
    expect(new URL(link as string).origin).toBe(store);

    await page.goto(link as string);
    await page.getByText("€10.00 off an order of €40.00 or more").waitFor();
    const code = await page.locator("[data-referee-code]").textContent();
    expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);

    // The friend signs up with the invited address and places a first order.
    await page.getByRole("link", { name: "Create your account" }).click();
    await page.getByRole("button", { name: "Sign out" }).click();
    await signIn("dominique@example.com", "Dominique");
    await page.goto(`${store}/products/1002`);
    await page.getByLabel("1 kg").check();
    await page.getByRole("button", { name: "Add to cart" }).click();
    await page.getByRole("button", { name: "Place the order (€42.00)" }).click();
    await page.getByText("is placed; its points are on their way").waitFor();

    // The referrer's bonus: 200 points, once the friend's order is credited.
    await page.getByRole("button", { name: "Sign out" }).click();
    await signIn(EMAIL, "Camille");
    await expect
      .poll(
        async () => {
          await page.reload();
          return balance();
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe("216 points");
  });

  it("sends a signed-in shopper back to a page of the store only", async () => {
    for (const next of [
      "/\\evil.example/x",
      "//evil.example/x",
      "https://evil.example/",
      "/.//evil.example/x",
      "/%2e//evil.example/x",
      "http://[",
    ]) {
      const response = await page.request.post(`${store}/account/sign-in`, {
        form: { email: EMAIL, firstName: "Camille", next },
        maxRedirects: 0,
      });
      expect(response.status()).toBe(303);
      expect(new URL(response.headers()["location"] as string, store).origin).toBe(store);
    }
    const refused = await page.request.post(`${store}/account/sign-in`, {
      form: { email: 'x"<b>@b.co', firstName: "Camille" },
      maxRedirects: 0,
    });
    expect(refused.status()).toBe(400);
    expect(await refused.text()).toContain("That email address is not valid.");
    // Made-up addresses of the store's own pages are answered, never with a 500.
    expect((await page.request.get(`${store}/account?next=http://[`)).status()).toBe(200);
    expect((await page.request.get(`${store}/welcome?loyalty_referral=made-up`)).status()).toBe(
      404,
    );
    const unknownInvite = await page.request.get(`${store}/account?invite=constructor`);
    expect(unknownInvite.status()).toBe(200);
    expect(await unknownInvite.text()).toContain("your friend cannot be invited.");
    // What the address bar says is shown as text, never as markup.
    const injected = await page.request.get(
      `${store}/account?invite=sent&email=${encodeURIComponent(`<img src=x onerror="alert('1')">`)}`,
    );
    const shown = await injected.text();
    expect(shown).toContain(
      "Invitation sent to &lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;.",
    );
    expect(shown).not.toContain("<img src=x");
  });
});
