/**
 * The demo as a newcomer runs it: `pnpm start`'s launcher on a machine without DATABASE_URL
 * (so an embedded PostgreSQL, initialised on the first start), then a shopper in Chromium: a
 * product page's points, a checkout credited on the account page, a claim's code, a refund's
 * deduction; then Ctrl-C and a second start that finds everything again.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LoyaltyClient } from "@loyalty/node-sdk";
import getPort from "get-port";
import { chromium, type Browser, type Page } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customerIdFor } from "../src/store-data.js";

const LAUNCHER = fileURLToPath(new URL("../scripts/start-demo.ts", import.meta.url));
const WIDGETS_SCRIPT = fileURLToPath(import.meta.resolve("@loyalty/widgets/loyalty-widgets.js"));
const EMAIL = "camille@example.com";
const CODE = /^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/;

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
  async function signIn(email: string, firstName: string, on: Page = page): Promise<void> {
    await on.getByLabel("Email").fill(email);
    await on.getByLabel("First name").fill(firstName);
    await on.getByRole("button", { name: "Sign in" }).click();
  }

  /** The SDK as the demo store's server has it: what the store sees of a customer's codes. */
  async function storeClient(): Promise<LoyaltyClient> {
    const kept = JSON.parse(await readFile(path.join(dataDir, "demo-store.json"), "utf8")) as {
      reference: string;
      apiKey: string;
      domain: string;
    };
    return new LoyaltyClient({
      apiKey: kept.apiKey,
      storeReference: kept.reference,
      domain: kept.domain,
      baseUrl: api,
    });
  }

  /**
   * The link of the invitation sent to this address: without SMTP_URL the invitation is written
   * to the data directory, as a real message.
   */
  async function invitationLink(to: string): Promise<string> {
    const mailDir = path.join(dataDir, "mail");
    let link: string | undefined;
    await expect
      .poll(
        async () => {
          for (const file of await readdir(mailDir).catch(() => [])) {
            const message = (await readFile(path.join(mailDir, file), "utf8"))
              .replace(/=\r?\n/g, "")
              .replace(/=3D/g, "=");
            if (!message.includes(to)) continue;
            link = /https?:\/\/[^\s"<>]+loyalty_referral=[A-Za-z0-9_-]+/.exec(message)?.[0];
            if (link) return true;
          }
          return false;
        },
        { timeout: 20_000, interval: 250 },
      )
      .toBe(true);
    return link as string;
  }

  /** The balance the account page shows, once the widget has it. */
  async function balancePoints(): Promise<number> {
    const text = await page.locator('loyalty-program-presentation [part="balance"]').textContent();
    return Number(text?.replace(/\D/g, ""));
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
    // The notice the claim fills is a live region known to screen readers before it has text:
    // one that appears with its text is often not read out.
    const notice = page.locator("[data-cart-notice]");
    expect(await notice.textContent()).toBe("");
    const cdp = await page.context().newCDPSession(page);
    const { root } = await cdp.send("DOM.getDocument");
    const { nodeId } = await cdp.send("DOM.querySelector", {
      nodeId: root.nodeId,
      selector: "[data-cart-notice]",
    });
    const { nodes } = await cdp.send("Accessibility.getPartialAXTree", {
      nodeId,
      fetchRelatives: false,
    });
    await cdp.detach();
    expect(nodes[0]).toMatchObject({ ignored: false, role: { value: "status" } });
    // Rewards come cheapest first: free shipping, 300 points.
    await programme.getByRole("button", { name: /Claim/ }).first().click();
    // Nothing is spent before the shopper confirms.
    await programme.getByRole("button", { name: "Confirm", exact: true }).click();
    const code = programme.getByText(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/).first();
    await code.waitFor();
    await expect.poll(() => programme.locator('[part="balance"]').textContent()).toBe("170 points");
    // The store put it in the cart; the shopper stays on the page, told so.
    await notice
      .getByText(`Your code ${await code.textContent()} is applied to your cart.`)
      .waitFor();
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

    const link = await invitationLink("dominique@example.com");
    expect(new URL(link).origin).toBe(store);

    await page.goto(link);
    await page.getByText("€10.00 off an order of €40.00 or more").waitFor();
    const code = await page.locator("[data-referee-code]").textContent();
    expect(code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    // Camille, who sent it, has ordered here: the offer is for a first order.
    await page.getByRole("button", { name: "Use this code in my cart" }).click();
    await page
      .getByText(
        `The code ${code} cannot be used: the welcome offer is for a first order, and you have ordered here before.`,
      )
      .waitFor();
    expect(await page.locator("[data-applied-code]").count()).toBe(0);

    // The friend signs up with the invited address and places a first order.
    await page.goto(link);
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
  /** The code a reward claimed in the cart widget left in the cart; the next steps use it. */
  let claimed = "";

  it("puts a code claimed in the cart widget in the cart, with what it takes off", async () => {
    // Camille (signed in above) orders four bags of coffee, to afford the €5 reward.
    await page.goto(`${store}/products/1002`);
    await page.getByLabel("1 kg").check();
    await page.getByLabel("Quantity").fill("4");
    await page.getByRole("button", { name: "Add to cart" }).click();
    await page.getByRole("button", { name: "Place the order (€168.00)" }).click();
    await page.getByText("is placed; its points are on their way").waitFor();
    await expect
      .poll(
        async () => {
          await page.reload();
          return balancePoints();
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBeGreaterThanOrEqual(500);

    await page.goto(`${store}/products/1002`);
    await page.getByLabel("1 kg").check();
    await page.getByRole("button", { name: "Add to cart" }).click();
    await page.waitForURL(`${store}/cart`);
    const cartWidget = page.locator("loyalty-cart-widget");
    await cartWidget.getByRole("button", { name: /€5 off/ }).click();
    await cartWidget.getByRole("button", { name: "Confirm", exact: true }).click();
    // The store's script hands the code to the store's server, and the cart shows it.
    await page.waitForURL(/\/cart\?discount=applied/);
    const applied = page.locator("[data-applied-code]");
    claimed = (await applied.getAttribute("data-applied-code")) ?? "";
    expect(claimed).toMatch(CODE);
    await page.getByText(`The code ${claimed} is applied to your cart.`).waitFor();
    expect(await applied.textContent()).toContain("€5 off: €5.00 off");
    expect(await page.locator("[data-discount]").textContent()).toContain("−€5.00");
    await page.getByRole("button", { name: "Place the order (€37.00)" }).waitFor();
    // The code the loyalty service gave Camille, as its list of her codes says.
    const codes = await (await storeClient()).rewards.listCodes(customerIdFor(EMAIL));
    expect(codes.map((each) => each.code)).toContain(claimed);
  });

  it("refuses a made-up code, or another shopper's, and leaves the cart as it was", async () => {
    await page.getByLabel("Discount code").fill("FAKE-C0DE-0000");
    await page.getByRole("button", { name: "Apply" }).click();
    await page
      .getByText("The code FAKE-C0DE-0000 cannot be used: it is not one of your codes")
      .waitFor();
    expect(await page.locator("[data-applied-code]").getAttribute("data-applied-code")).toBe(
      claimed,
    );
    await page.getByRole("button", { name: "Place the order (€37.00)" }).waitFor();

    // Another shopper, in a browser of their own, posts one of Camille's codes as is.
    const camilles = await (await storeClient()).rewards.listCodes(customerIdFor(EMAIL));
    const other = await browser.newContext();
    try {
      const them = await other.newPage();
      await them.goto(`${store}/account`);
      await signIn("frankie@example.com", "Frankie", them);
      await them.getByRole("button", { name: "Sign out" }).waitFor();
      await them.goto(`${store}/products/1002`);
      await them.getByLabel("1 kg").check();
      await them.getByRole("button", { name: "Add to cart" }).click();
      await them.waitForURL(`${store}/cart`);
      const forged = await them.request.post(`${store}/cart/discount`, {
        form: { code: camilles[0]?.code ?? claimed },
        maxRedirects: 0,
      });
      expect(forged.status()).toBe(303);
      await them.goto(new URL(forged.headers()["location"] as string, store).href);
      await them.getByText("cannot be used: it is not one of your codes").waitFor();
      expect(await them.locator("[data-applied-code]").count()).toBe(0);
      await them.getByRole("button", { name: "Place the order (€42.00)" }).waitFor();
    } finally {
      await other.close();
    }
  });

  it("repeats in the cart's notices only what could be a code", async () => {
    const lure = "Call 0800 000 000: your account is locked";
    for (const discount of ["removed", "used", "not-yours", "applied"]) {
      const query = new URLSearchParams({ discount, code: lure });
      const answer = await page.request.get(`${store}/cart?${query.toString()}`);
      expect(await answer.text()).not.toContain("0800 000 000");
    }
    const removed = await page.request.get(`${store}/cart?discount=removed&code=ABCD-EFGH-IJKL`);
    expect(await removed.text()).toContain("The code ABCD-EFGH-IJKL is removed.");
    // Typed in the cart, it is refused without being repeated.
    await page.goto(`${store}/cart`);
    await page.getByLabel("Discount code").fill(lure);
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("That is not a discount code").waitFor();
    expect(await page.content()).not.toContain("0800 000 000");
    expect(await page.locator("[data-applied-code]").getAttribute("data-applied-code")).toBe(
      claimed,
    );
  });

  it("registers the order with its code, which then leaves the shopper's codes", async () => {
    await page.goto(`${store}/cart`);
    await page.getByRole("button", { name: "Place the order (€37.00)" }).click();
    await page.getByText("is placed; its points are on their way").waitFor();
    const paid = await page.locator("[data-order]").first().locator("[data-paid]").textContent();
    expect(paid?.replace(/\s+/g, " ").trim()).toBe(
      `Paid €37.00 · code ${claimed} (€5 off): −€5.00`,
    );
    // The loyalty service strikes the code off once it has credited the order that named it.
    const loyalty = await storeClient();
    await expect
      .poll(
        async () =>
          (await loyalty.rewards.listCodes(customerIdFor(EMAIL))).map((each) => each.code),
        { timeout: 20_000, interval: 500 },
      )
      .not.toContain(claimed);
    // Typed again, it is refused.
    await page.goto(`${store}/cart`);
    await page.getByLabel("Discount code").fill(claimed);
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText(`The code ${claimed} cannot be used: it has been used already.`).waitFor();
    expect(await page.locator("[data-applied-code]").count()).toBe(0);
  });

  /** The invitation Eli (not a shopper yet) was sent; the next step uses it. */
  let eliLink = "";

  it("puts an invited friend's welcome code in the cart, and says what its minimum needs", async () => {
    await page.goto(`${store}/account`);
    await page.getByLabel("Their email").fill("eli@example.com");
    await page.getByRole("button", { name: "Send the invitation" }).click();
    await page.getByText("Invitation sent to eli@example.com.").waitFor();
    const link = await invitationLink("eli@example.com");
    eliLink = link;
    // The friend, who has no account yet.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.goto(link);
    const welcome = await page.locator("[data-referee-code]").textContent();
    await page.getByRole("button", { name: "Use this code in my cart" }).click();
    await page.waitForURL(/\/cart\?discount=applied/);
    const applied = page.locator("[data-applied-code]");
    expect(await applied.getAttribute("data-applied-code")).toBe(welcome);
    expect(await applied.textContent()).toContain("Welcome offer: €10.00 off");

    await page.goto(`${store}/products/1002`);
    await page.getByRole("button", { name: "Add to cart" }).click();
    await page.waitForURL(`${store}/cart`);
    await page
      .getByText("This code needs an order of €40.00 or more: add €27.50 to use it.")
      .waitFor();
    expect(await page.locator("[data-discount]").count()).toBe(0);
    // 12.50 € of coffee and 4.90 € of shipping.
    expect(await page.locator("[data-total]").textContent()).toBe("€17.40");

    await page.getByLabel("Quantity of Ethiopian Yirgacheffe beans").fill("4");
    await page.getByRole("button", { name: "Update" }).click();
    await page.waitForURL(`${store}/cart`);
    expect(await page.locator("[data-discount]").textContent()).toContain("−€10.00");
    expect(await page.locator("[data-total]").textContent()).toBe("€40.00");
    expect(consoleErrors).toEqual([]);
  });

  it("spends a code on one order only, when two carts with it are checked out at once", async () => {
    await page.goto(`${store}/account?next=/cart`);
    await signIn("eli@example.com", "Eli");
    await page.getByRole("button", { name: "Place the order (€40.00)" }).waitFor();
    // Eli passed the link on: Fern, in another browser, fills a cart with the same code.
    const other = await browser.newContext();
    try {
      const fern = await other.newPage();
      await fern.goto(eliLink);
      await fern.getByRole("button", { name: "Use this code in my cart" }).click();
      await fern.waitForURL(/\/cart\?discount=applied/);
      const welcome = await fern.locator("[data-applied-code]").getAttribute("data-applied-code");
      await fern.goto(`${store}/products/1002`);
      await fern.getByLabel("Quantity").fill("4");
      await fern.getByRole("button", { name: "Add to cart" }).click();
      await fern.goto(`${store}/account?next=/cart`);
      await signIn("fern@example.com", "Fern", fern);
      await fern.getByRole("button", { name: "Place the order (€40.00)" }).waitFor();

      const checkout = (on: Page) => on.request.post(`${store}/checkout`, { maxRedirects: 0 });
      const answers = await Promise.all([checkout(page), checkout(fern)]);
      const targets = answers.map((answer) => answer.headers()["location"]);
      expect(targets.filter((target) => target?.startsWith("/account?placed="))).toHaveLength(1);
      // The other cart is not placed, and says why.
      const refused = targets[0] === "/cart" ? page : fern;
      await refused.goto(`${store}/cart`);
      await refused
        .getByText(`The code ${welcome} was taken out of your cart: it has been used already.`)
        .waitFor();
      await refused.goto(`${store}/account`);
      expect(await refused.locator("[data-order]").count()).toBe(0);
    } finally {
      await other.close();
    }
  });

  it("serves the widgets' script compressed, under a URL named by its content", async () => {
    // A browser that never saw the script: it asks for it.
    const fresh = await browser.newContext();
    try {
      const visitor = await fresh.newPage();
      const script = visitor.waitForResponse((response) =>
        /\/assets\/loyalty-widgets\.[0-9a-f]{10}\.js$/.test(response.url()),
      );
      await visitor.goto(`${store}/`);
      const src = await visitor.locator('script[src*="loyalty-widgets"]').getAttribute("src");
      const hash = /^\/assets\/loyalty-widgets\.([0-9a-f]{10})\.js$/.exec(src ?? "")?.[1];
      const bytes = await readFile(WIDGETS_SCRIPT);
      expect(hash).toBe(createHash("sha256").update(bytes).digest("hex").slice(0, 10));
      const answer = await script;
      const asked = (await answer.request().allHeaders())["accept-encoding"] ?? "";
      const headers = await answer.allHeaders();
      expect(headers["content-encoding"]).toBe(asked.includes("br") ? "br" : "gzip");
      expect(headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      // The page's widgets run from it.
      await visitor
        .locator("loyalty-product-points")
        .first()
        .getByText(/points/)
        .waitFor();
    } finally {
      await fresh.close();
    }

    const url = new URL(
      `/assets/loyalty-widgets.${createHash("sha256")
        .update(await readFile(WIDGETS_SCRIPT))
        .digest("hex")
        .slice(0, 10)}.js`,
      store,
    );
    for (const encoding of ["br", "gzip"]) {
      const response = await fetch(url, { headers: { "accept-encoding": encoding } });
      expect(response.headers.get("content-encoding")).toBe(encoding);
      expect(response.headers.get("vary")).toMatch(/Accept-Encoding/i);
      // fetch decodes it: the very bytes of the build.
      expect(Buffer.from(await response.arrayBuffer()).equals(await readFile(WIDGETS_SCRIPT))).toBe(
        true,
      );
    }
    const plain = await fetch(url, { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    await plain.arrayBuffer();
    // The unhashed URL, for pages written by hand, is cached a short while only.
    const unhashed = await fetch(`${store}/assets/loyalty-widgets.js`);
    expect(unhashed.status).toBe(200);
    expect(unhashed.headers.get("cache-control")).toBe("public, max-age=300");
    await unhashed.arrayBuffer();
    // Another build's hash is not this content.
    expect((await fetch(`${store}/assets/loyalty-widgets.0000000000.js`)).status).toBe(404);
  });
});
