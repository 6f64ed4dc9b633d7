import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import {
  LoyaltyClient,
  LoyaltyError,
  LoyaltyNotFoundError,
  LoyaltyValidationError,
  type RefereeCodeResponse,
} from "@loyalty/node-sdk";
import { emailSchema } from "@loyalty/shared-types";
import cookieParser from "cookie-parser";
import express, {
  type ErrorRequestHandler,
  type Express,
  type Request,
  type Response,
} from "express";
import { findProduct, findVariant } from "./catalogue.js";
import type { StoreConfig } from "./config.js";
import type { Html } from "./html.js";
import { isCodeShaped, priceCart, roundCents, type AppliedCode } from "./pricing.js";
import { customerIdFor, StoreData, type Order } from "./store-data.js";
import {
  accountPage,
  cartPage,
  catalogue,
  messagePage,
  welcomePage,
  productPage,
  type AccountNotice,
  type CartLine,
  type CartNotice,
  type PageContext,
  type Shopper,
} from "./views.js";
import { loadWidgetsScript, sendWidgetsScript, UNHASHED_URL } from "./widgets-script.js";

/** The widgets' one script, as the published package ships it. */
const WIDGETS_SCRIPT = fileURLToPath(import.meta.resolve("@loyalty/widgets/loyalty-widgets.js"));
const PUBLIC_DIR = fileURLToPath(new URL("../public", import.meta.url));

/**
 * In a signed cookie: an id (a cart is placed once), `{ "<productId>:<variantId>": quantity }`
 * and the discount code the shopper applied, checked again whenever it is used.
 */
interface Cart {
  id: string;
  lines: Record<string, number>;
  code?: string;
}

const COOKIE = { httpOnly: true, sameSite: "lax", signed: true, path: "/" } as const;
const MAX_QUANTITY = 99;
/** How the cart names an invited friend's code. */
const WELCOME_OFFER = "Welcome offer";

/** A client's mistake, answered with its status and message; never a stack trace. */
class BadRequest extends Error {
  readonly status = 400;
}

function readShopper(req: Request): Shopper | undefined {
  const value: unknown = req.signedCookies["shopper"];
  if (typeof value !== "object" || value === null) return undefined;
  const { email, firstName } = value as Record<string, unknown>;
  if (typeof email !== "string" || typeof firstName !== "string") return undefined;
  return { id: customerIdFor(email), email, firstName };
}

function readCart(req: Request): Cart {
  const value: unknown = req.signedCookies["cart"];
  const { id, lines, code } = (typeof value === "object" && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  const cart: Cart = { id: typeof id === "string" ? id : randomUUID(), lines: {} };
  if (typeof code === "string" && isCodeShaped(code)) cart.code = code;
  if (typeof lines === "object" && lines !== null) {
    for (const [key, quantity] of Object.entries(lines)) {
      if (cartLine(key, quantity)) cart.lines[key] = quantity as number;
    }
  }
  return cart;
}

/** A cart entry as a line with its product and price, or undefined when it names nothing. */
function cartLine(key: string, quantity: unknown): CartLine | undefined {
  const [productId, variantId] = key.split(":");
  const product = findProduct(Number(productId));
  const variant = product && findVariant(product, variantId);
  if (!product || !variant || !Number.isInteger(quantity)) return undefined;
  if ((quantity as number) < 1 || (quantity as number) > MAX_QUANTITY) return undefined;
  return {
    product,
    variantId: variant.id,
    label: variant.label,
    price: variant.price,
    quantity: quantity as number,
  };
}

const cartLines = (cart: Cart) =>
  Object.entries(cart.lines).flatMap(([key, quantity]) => cartLine(key, quantity) ?? []);

function field(req: Request, name: string): string | undefined {
  const value: unknown = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === "string" ? value.trim() : undefined;
}

/** A whole quantity from a form, or a 400. */
function quantityField(req: Request, min: number): number {
  const quantity = Number(field(req, "quantity") ?? 1);
  if (!Number.isInteger(quantity) || quantity < min || quantity > MAX_QUANTITY) {
    throw new BadRequest(`The quantity must be a whole number from ${min} to ${MAX_QUANTITY}.`);
  }
  return quantity;
}

/** Why a code cannot go in the cart (the notices of `/cart?discount=`). */
type CodeRefusal = "used" | "not-yours" | "sign-in" | "expired" | "first-order";

/** A code checked for the shopper: what it gives, or why they cannot use it. */
type CodeCheck = { applied: AppliedCode } | { refused: CodeRefusal };

/** What went wrong with the loyalty service, in a sentence for the shopper. */
function loyaltyProblem(error: unknown): string {
  if (error instanceof LoyaltyError) return `${error.message} (request ${error.requestId ?? "?"})`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * The demo store: a catalogue, a cart, a checkout that registers the order with the loyalty
 * service, refunds that declare credit notes, and an account page. The loyalty parts are the
 * `loyalty.*` calls and the widget tags the views write.
 */
export function createStoreApp(config: StoreConfig): Express {
  const loyalty = new LoyaltyClient({
    apiKey: config.apiKey,
    storeReference: config.storeReference,
    domain: config.origin,
    baseUrl: config.apiUrl,
  });
  const data = new StoreData(config.dataFile);
  const app = express();
  app.disable("x-powered-by");
  app.use(cookieParser(data.secret));
  // The widgets need no inline script or style: the page may forbid both.
  const securityHeaders = {
    "Content-Security-Policy": `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self' ${new URL(config.publicApiUrl).origin}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
  };
  app.use((_req, res, next) => {
    res.set(securityHeaders);
    next();
  });

  // Read and compressed once; until the widgets are built, read again on each request.
  let widgetsScript = loadWidgetsScript(WIDGETS_SCRIPT);
  const currentWidgetsScript = () => (widgetsScript ??= loadWidgetsScript(WIDGETS_SCRIPT));
  // The pages name the script by its content: browsers keep it for a year and never ask again,
  // and a new build is a new URL. The unhashed URL stays for pages written by hand, cached 5 min.
  app.get("/assets/loyalty-widgets{.:hash}.js", (req, res, next) => {
    const script = currentWidgetsScript();
    if (!script) {
      res
        .status(503)
        .type("text/plain")
        .send("The widgets are not built: run `pnpm --filter @loyalty/widgets build`.");
      return;
    }
    if (req.path === UNHASHED_URL) {
      return sendWidgetsScript(req, res, script, "public, max-age=300");
    }
    // Another build's hash: not this content, which must not be cached under its name.
    if (req.path !== script.url) return next();
    sendWidgetsScript(req, res, script, "public, max-age=31536000, immutable");
  });
  app.use("/assets", express.static(PUBLIC_DIR, { maxAge: "5m" }));

  const form = express.urlencoded({ extended: false, limit: "10kb" });

  function context(req: Request): PageContext {
    const shopper = readShopper(req);
    const cartCount = cartLines(readCart(req)).reduce((sum, line) => sum + line.quantity, 0);
    return {
      shopper,
      cartCount,
      widgets: loyalty.widgetAttributes(shopper?.id, { apiBase: config.publicApiUrl }),
      apiBase: config.publicApiUrl,
      domain: config.origin,
      widgetsScriptUrl: currentWidgetsScript()?.url ?? UNHASHED_URL,
    };
  }

  /** An invitation's welcome code, or undefined for a link the service does not know. */
  async function refereeCode(referralHash: string): Promise<RefereeCodeResponse | undefined> {
    try {
      return await loyalty.referrals.getRefereeCode({ referralHash });
    } catch (error) {
      // A link someone mistyped or made up: the service does not know it, or not its form.
      if (error instanceof LoyaltyNotFoundError || error instanceof LoyaltyValidationError) {
        return undefined;
      }
      throw error;
    }
  }

  /**
   * Whether the shopper may use this code, never taking the browser's word for it: one of the
   * signed-in shopper's unused reward codes (the loyalty service lists them), or the welcome
   * code of the invitation this browser arrived with, for a shopper who has not ordered here
   * yet (anyone with the link may open it, its referrer included). A code an order of this store
   * used is refused at once, before the loyalty service has credited that order and struck it
   * off.
   */
  async function checkCode(req: Request, typed: string): Promise<CodeCheck> {
    const wanted = typed.trim().toUpperCase();
    if (data.orderUsing(wanted)) return { refused: "used" };
    const shopper = readShopper(req);
    if (shopper) {
      const codes = await loyalty.rewards.listCodes(shopper.id);
      const own = codes.find((each) => each.code.toUpperCase() === wanted);
      if (own) return { applied: { code: own.code, name: own.rewardName, voucher: own.voucher } };
    }
    const referralHash: unknown = req.signedCookies["referral"];
    const welcome = typeof referralHash === "string" ? await refereeCode(referralHash) : undefined;
    if (welcome?.code.toUpperCase() === wanted) {
      if (welcome.expiresAt && Date.parse(welcome.expiresAt) <= Date.now()) {
        return { refused: "expired" };
      }
      if (shopper && data.ordersOf(shopper.id).length) return { refused: "first-order" };
      return { applied: { code: welcome.code, name: WELCOME_OFFER, voucher: welcome.voucher } };
    }
    return { refused: shopper ? "not-yours" : "sign-in" };
  }

  const cartWith = (code: string, outcome: "applied" | "removed" | CodeRefusal) =>
    `/cart?${new URLSearchParams({ discount: outcome, code }).toString()}#discount`;
  // What cannot be a code is not repeated on the page: the address could make it say anything.
  const NOT_A_CODE = "/cart?discount=not-a-code#discount";

  const send = (res: Response, page: Html, status = 200) =>
    res.status(status).type("html").set("Cache-Control", "no-store").send(page.text);

  /** The shopper's own order, or a 404 (another shopper's order is no business of theirs). */
  function ownOrder(req: Request): Order {
    const shopper = readShopper(req);
    const order = data.find(Number(req.params["id"]));
    if (!shopper || !order || order.customerId !== shopper.id) {
      throw Object.assign(new Error("No such order."), { status: 404 });
    }
    return order;
  }

  /** Tells the loyalty service of a paid order; it credits the points a moment later. */
  async function register(order: Order): Promise<void> {
    const paidForGoods = order.lines.reduce((sum, line) => sum + line.totalPaid, 0);
    const discountAmount = roundCents(
      order.lines.reduce((sum, line) => sum + line.unitPrice * line.quantity, 0) - paidForGoods,
    );
    try {
      await loyalty.orders.register(
        {
          externalId: order.externalId,
          externalReference: order.reference,
          customer: { externalId: order.customerId, email: order.email },
          currency: "EUR",
          orderedAt: order.placedAt,
          lines: order.lines.map((line) => ({
            lineId: line.lineId,
            productId: line.productId,
            categoryIds: line.categoryIds,
            name: line.name,
            quantity: line.quantity,
            unitPrice: line.unitPrice,
            totalPaid: line.totalPaid,
          })),
          shippingAmount: order.shippingAmount,
          ...(discountAmount > 0 && { discountAmount }),
          totalPaid: roundCents(paidForGoods + order.shippingAmount),
          // The loyalty service strikes a reward code it names off the customer's codes.
          discountCodes: order.discount ? [order.discount.code] : [],
        },
        // No Idempotency-Key of ours: registration is idempotent by order id (sending the order
        // again, changed or not, never credits twice), and the SDK keeps one key across its own
        // retries. A key per order would make a changed order a 400 for 24 hours.
      );
      order.registered = true;
      order.registrationError = null;
    } catch (error) {
      order.registrationError = loyaltyProblem(error);
    }
    data.save(order);
  }

  /** Tells the loyalty service of the order's refunds so far, under its latest credit note. */
  async function declareRefunds(order: Order): Promise<void> {
    const creditNoteId = `CN-${order.reference.slice(1)}-${order.creditNotes}`;
    try {
      await loyalty.orders.refund(
        {
          externalId: order.externalId,
          status: order.status === "refunded" ? "refunded" : "partially_refunded",
          creditNoteId,
          lines: order.lines
            .filter((line) => line.refundedQuantity > 0)
            .map((line) => ({
              lineId: line.lineId,
              quantity: line.refundedQuantity,
              // What was paid for the units given back: their share of a discounted line.
              amount: roundCents((line.totalPaid * line.refundedQuantity) / line.quantity),
            })),
          refundedAt: new Date().toISOString(),
        },
        // Refunds are cumulative: declaring the same refunds again deducts nothing more.
      );
      order.refundError = null;
    } catch (error) {
      order.refundError = loyaltyProblem(error);
    }
    data.save(order);
  }

  app.get("/", (req, res) => send(res, catalogue(context(req))));

  app.get("/products/:id", (req, res) => {
    const product = findProduct(Number(req.params.id));
    if (!product) return send(res, messagePage(context(req), "Not found", "No such product."), 404);
    send(res, productPage(context(req), product));
  });

  app.post("/cart/add", form, (req, res) => {
    const product = findProduct(Number(field(req, "productId")));
    const variant = product && findVariant(product, field(req, "variantId"));
    if (!product || !variant) throw new BadRequest("Unknown product or size.");
    const quantity = quantityField(req, 1);
    const cart = readCart(req);
    const key = `${product.id}:${variant.id}`;
    cart.lines[key] = Math.min((cart.lines[key] ?? 0) + quantity, MAX_QUANTITY);
    res.cookie("cart", cart, COOKIE).redirect(303, "/cart");
  });

  app.post("/cart/update", form, (req, res) => {
    const cart = readCart(req);
    const key = field(req, "key") ?? "";
    if (!(key in cart.lines)) throw new BadRequest("That line is not in your cart.");
    const quantity = quantityField(req, 0);
    if (quantity === 0) delete cart.lines[key];
    else cart.lines[key] = quantity;
    res.cookie("cart", cart, COOKIE).redirect(303, "/cart");
  });

  // The cart's code is checked again on every view: one used meanwhile (in another tab), expired,
  // or not the shopper's any more (another shopper signed in) leaves the cart, with a notice.
  app.get("/cart", async (req, res) => {
    const cart = readCart(req);
    let notice = cartNotice(req, cart.code);
    let applied: AppliedCode | undefined;
    if (cart.code) {
      try {
        const check = await checkCode(req, cart.code);
        if ("applied" in check) {
          applied = check.applied;
        } else {
          notice = { kind: "error", text: codeRefusal(cart.code, check.refused, "dropped") };
          delete cart.code;
          res.cookie("cart", cart, COOKIE);
        }
      } catch (error) {
        if (!(error instanceof LoyaltyError)) throw error;
        process.stderr.write(`GET /cart: ${loyaltyProblem(error)}\n`);
        notice = {
          kind: "error",
          text: `Your code ${cart.code} cannot be checked right now: it is not applied yet.`,
        };
      }
    }
    send(res, cartPage(context(req), cartLines(cart), applied, notice));
  });

  // A code typed in the cart's form, or claimed in a widget (the store's script posts it here).
  app.post("/cart/discount", form, async (req, res) => {
    const typed = (field(req, "code") ?? "").toUpperCase();
    if (!typed) return res.redirect(303, "/cart#discount");
    if (!isCodeShaped(typed)) return res.redirect(303, NOT_A_CODE);
    const check = await checkCode(req, typed);
    if (!("applied" in check)) return res.redirect(303, cartWith(typed, check.refused));
    const cart = readCart(req);
    cart.code = check.applied.code;
    res.cookie("cart", cart, COOKIE).redirect(303, cartWith(cart.code, "applied"));
  });

  app.post("/cart/discount/remove", (req, res) => {
    const cart = readCart(req);
    const { code } = cart;
    if (!code) return res.redirect(303, "/cart#discount");
    delete cart.code;
    res.cookie("cart", cart, COOKIE).redirect(303, cartWith(code, "removed"));
  });

  // Checkout: the order is paid (the demo takes no payment), kept, then registered with the
  // loyalty service.
  app.post("/checkout", async (req, res) => {
    const shopper = readShopper(req);
    const cart = readCart(req);
    const lines = cartLines(cart);
    if (!shopper) return res.redirect(303, "/account?next=/cart");
    // A second submission of a cart (a double click, a reload) shows the order it placed.
    const showPlaced = (order: Order) =>
      res.redirect(303, `/account?placed=${order.externalId}#orders`);
    const placed = data.placedFrom(cart.id);
    if (placed) return showPlaced(placed);
    if (!lines.length) return res.redirect(303, "/cart");
    let code: AppliedCode | undefined;
    if (cart.code) {
      // Checked again for the shopper checking out; if it fails, the cart says why.
      const check = await checkCode(req, cart.code);
      if (!("applied" in check)) return res.redirect(303, "/cart");
      code = check.applied;
    }
    // The same cart submitted again while the code was checked: that submission placed it.
    const placedMeanwhile = data.placedFrom(cart.id);
    if (placedMeanwhile) return showPlaced(placedMeanwhile);
    const totals = priceCart(
      lines.map((line) => line.price * line.quantity),
      code?.voucher,
    );
    // A code that gives this order nothing (below its minimum) is not spent on it.
    const used = code && !totals.unmet ? code : undefined;
    // Another cart's checkout may have spent the code while this one was checked: asked again
    // in the tick that places the order, so that no other can come between. The cart says why.
    if (used && data.orderUsing(used.code)) return res.redirect(303, "/cart");
    const order = data.place({
      cartId: cart.id,
      customerId: shopper.id,
      email: shopper.email,
      placedAt: new Date().toISOString(),
      lines: lines.map((line, index) => ({
        lineId: index + 1,
        productId: line.product.id,
        variantId: line.variantId,
        name: `${line.product.name} (${line.label})`,
        categoryIds: line.product.categoryIds,
        quantity: line.quantity,
        unitPrice: line.price,
        totalPaid: totals.lineTotals[index] ?? line.price * line.quantity,
        refundedQuantity: 0,
      })),
      shippingAmount: totals.shipping,
      discount: used ? { code: used.code, name: used.name, amount: totals.discount } : null,
    });
    await register(order);
    res.clearCookie("cart", COOKIE).redirect(303, `/account?placed=${order.externalId}#orders`);
  });

  // An order the loyalty service could not be told of (it was down): sent again, same key.
  app.post("/orders/:id/register", async (req, res) => {
    const order = ownOrder(req);
    if (!order.registered) await register(order);
    res.redirect(303, `/account?placed=${order.externalId}#orders`);
  });

  // A refund: one unit of a line given back, or the whole order. The loyalty service is told
  // the order's refunds so far (cumulative), with the credit note's id.
  app.post("/orders/:id/refund", form, async (req, res) => {
    const order = ownOrder(req);
    if (order.status === "refunded") throw new BadRequest("This order is already refunded.");
    if (field(req, "all") === "1") {
      for (const line of order.lines) line.refundedQuantity = line.quantity;
    } else {
      const line = order.lines.find((each) => each.lineId === Number(field(req, "lineId")));
      if (!line) throw new BadRequest("That line is not in this order.");
      if (line.refundedQuantity >= line.quantity) {
        throw new BadRequest("Every unit of that line is already returned.");
      }
      line.refundedQuantity += 1;
    }
    const whole = order.lines.every((line) => line.refundedQuantity === line.quantity);
    order.status = whole ? "refunded" : "partially_refunded";
    order.creditNotes += 1;
    data.save(order);
    await declareRefunds(order);
    res.redirect(303, `/account?refunded=${order.externalId}#orders`);
  });

  // A refund the loyalty service could not be told of: the order's refunds so far, sent again
  // under the last credit note's key (cumulative, so this covers any earlier one that failed).
  app.post("/orders/:id/refund/resend", async (req, res) => {
    const order = ownOrder(req);
    if (order.refundError) await declareRefunds(order);
    res.redirect(303, `/account?refunded=${order.externalId}#orders`);
  });

  app.get("/account", (req, res) => {
    const page = context(req);
    const orders = page.shopper ? data.ordersOf(page.shopper.id) : [];
    const next = typeof req.query["next"] === "string" ? localPath(req.query["next"]) : undefined;
    send(res, accountPage(page, orders, accountNotice(req, orders), next));
  });

  app.post("/account/sign-in", form, (req, res) => {
    const email = emailSchema.safeParse(field(req, "email")?.toLowerCase());
    const firstName = field(req, "firstName") ?? "";
    if (!email.success) throw new BadRequest("That email address is not valid.");
    if (!firstName || firstName.length > 100) {
      throw new BadRequest("A first name of 100 characters at most, please.");
    }
    const target = localPath(field(req, "next")) ?? "/account";
    res.cookie("shopper", { email: email.data, firstName }, COOKIE).redirect(303, target);
  });

  app.post("/account/sign-out", (_req, res) => {
    res.clearCookie("shopper", COOKIE).redirect(303, "/account");
  });

  /** A path of this store to go back to after signing in: never a redirect to another site. */
  function localPath(next: string | undefined): string | undefined {
    if (!next || !URL.canParse(next, config.origin)) return undefined;
    const url = new URL(next, config.origin);
    const path = `${url.pathname}${url.search}`;
    // `/.//host` resolves to the path `//host`, which a browser reads as another site.
    if (url.origin !== config.origin || /^\/[/\\]/.test(path)) return undefined;
    return path;
  }

  // A shopper invites a friend: the loyalty service sends the invitation (in the demo, an .eml
  // file in the data directory) with a link to /welcome.
  app.post("/account/referrals", form, async (req, res) => {
    const shopper = readShopper(req);
    if (!shopper) return res.redirect(303, "/account");
    const email = emailSchema.safeParse(field(req, "email")?.toLowerCase());
    if (!email.success) throw new BadRequest("That email address is not valid.");
    const firstName = field(req, "firstName") || undefined;
    if (firstName && firstName.length > 100) {
      throw new BadRequest("A first name of 100 characters at most, please.");
    }
    let outcome = "sent";
    try {
      await loyalty.referrals.create(shopper.id, { email: email.data, firstName });
    } catch (error) {
      // The service's refusals (already a customer, already invited) are for the shopper to read.
      if (!(error instanceof LoyaltyError) || error.status !== 400) throw error;
      outcome = error.reason ?? "validation-failed";
    }
    const query = new URLSearchParams({ invite: outcome, email: email.data });
    res.redirect(303, `/account?${query.toString()}#invite`);
  });

  // Where the referral programme's invitations land: the invited friend's discount code.
  app.get("/welcome", async (req, res) => {
    const referralHash = req.query["loyalty_referral"];
    if (typeof referralHash !== "string" || !referralHash) return res.redirect(303, "/");
    const code = await refereeCode(referralHash);
    if (!code) {
      const text = "This invitation link is not valid any more.";
      return send(res, messagePage(context(req), "Welcome", text), 404);
    }
    // The invitation this browser came with: its code is the friend's to put in the cart.
    res.cookie("referral", referralHash, COOKIE);
    send(res, welcomePage(context(req), code));
  });

  app.use((req, res) => send(res, messagePage(context(req), "Not found", "No such page."), 404));

  // A client's mistake (a bad form, a malformed URL) gets its status and a short page; anything
  // else is logged and answered 500, never with a stack trace.
  const errors: ErrorRequestHandler = (error: unknown, req, res, _next) => {
    // The loyalty service's own answers (a refused key, its rate limit) are not the shopper's
    // mistakes: they are this store's upstream failing, 502.
    if (error instanceof LoyaltyError) {
      process.stderr.write(`${req.method} ${req.path}: ${loyaltyProblem(error)}\n`);
      const text = "The loyalty service could not answer; try again in a moment.";
      return send(res, messagePage(context(req), "Sorry", text), 502);
    }
    const status = (error as { status?: unknown }).status;
    const clientError = typeof status === "number" && status >= 400 && status < 500;
    if (!clientError) process.stderr.write(`${req.method} ${req.path}: ${String(error)}\n`);
    const message = clientError ? (error as Error).message : "Something went wrong on our side.";
    send(
      res,
      messagePage(context(req), clientError ? "Sorry" : "Error", message),
      clientError ? status : 500,
    );
  };
  app.use(errors);
  return app;
}

/** The referral refusals of the API, as the shopper reads them. */
const INVITE_REFUSALS = new Map([
  ["referral-customer-already-exists", "Your friend already shops with us: no invitation needed."],
  ["referral-already-pending", "Your friend has an invitation already."],
  ["referral-already-completed", "Your friend has already joined through an invitation."],
  ["validation-failed", "That invitation cannot be sent (is it your own address?)."],
]);

/** Why a code cannot be used, as the shopper reads it. */
const CODE_REFUSALS: Record<CodeRefusal, string> = {
  used: "it has been used already",
  "not-yours": "it is not one of your codes, or it has been used or has expired",
  "sign-in": "sign in first: a reward code is for the shopper who claimed it",
  expired: "it has expired",
  "first-order": "the welcome offer is for a first order, and you have ordered here before",
};

function codeRefusal(code: string, refusal: CodeRefusal, when: "typed" | "dropped"): string {
  return when === "typed"
    ? `The code ${code} cannot be used: ${CODE_REFUSALS[refusal]}.`
    : `The code ${code} was taken out of your cart: ${CODE_REFUSALS[refusal]}.`;
}

/** What the last action on the cart's code did (`/cart?discount=…&code=…`). */
function cartNotice(req: Request, cartCode: string | undefined): CartNotice | undefined {
  const { discount, code } = req.query;
  if (discount === "not-a-code") {
    return {
      kind: "error",
      text: "That is not a discount code: a code has letters, digits and dashes.",
    };
  }
  // The page repeats only what could be a code: a link cannot make it say anything else.
  if (typeof discount !== "string" || typeof code !== "string" || !isCodeShaped(code)) {
    return undefined;
  }
  if (discount === "applied") {
    // Said of the cart's own code only: a link cannot make the page claim another is applied.
    return code === cartCode
      ? { kind: "success", text: `The code ${code} is applied to your cart.` }
      : undefined;
  }
  if (discount === "removed") return { kind: "success", text: `The code ${code} is removed.` };
  // Object.hasOwn: `?discount=constructor` is no refusal.
  return Object.hasOwn(CODE_REFUSALS, discount)
    ? { kind: "error", text: codeRefusal(code, discount as CodeRefusal, "typed") }
    : undefined;
}

function accountNotice(req: Request, orders: Order[]): AccountNotice | undefined {
  const find = (name: string) => {
    const id = Number(req.query[name]);
    return orders.find((order) => order.externalId === id);
  };
  const placed = find("placed");
  if (placed) {
    return placed.registrationError
      ? {
          kind: "error",
          text: `Order ${placed.reference} is placed, but ${placed.registrationError}`,
          section: "orders",
        }
      : {
          kind: "success",
          text: `Thank you! Order ${placed.reference} is placed; its points are on their way.`,
          section: "orders",
        };
  }
  const invite = req.query["invite"];
  const invited = typeof req.query["email"] === "string" ? req.query["email"] : "your friend";
  if (typeof invite === "string") {
    return invite === "sent"
      ? { kind: "success", text: `Invitation sent to ${invited}.`, section: "invite" }
      : {
          kind: "error",
          text: INVITE_REFUSALS.get(invite) ?? `${invited} cannot be invited.`,
          section: "invite",
        };
  }
  const refunded = find("refunded");
  if (refunded) {
    return refunded.refundError
      ? { kind: "error", text: refunded.refundError, section: "orders" }
      : {
          kind: "success",
          text: `Refund of order ${refunded.reference} declared.`,
          section: "orders",
        };
  }
  return undefined;
}
