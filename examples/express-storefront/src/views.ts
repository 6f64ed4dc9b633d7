import {
  formatAttributes,
  type RefereeCodeResponse,
  type WidgetAttributes,
} from "@loyalty/node-sdk";
import { CATEGORIES, PRODUCTS, type Product } from "./catalogue.js";
import { html, trusted, type Html } from "./html.js";
import {
  FREE_SHIPPING_FROM,
  MAX_CODE_LENGTH,
  priceCart,
  roundCents,
  type AppliedCode,
  type Unmet,
  type Voucher,
} from "./pricing.js";
import type { Order, OrderLine } from "./store-data.js";

export interface Shopper {
  id: number;
  email: string;
  firstName: string;
}

/** What every page knows: who is signed in, the cart's size, the widgets' attributes. */
export interface PageContext {
  shopper: Shopper | undefined;
  cartCount: number;
  /** `domain`, `api-base`, and for a signed-in shopper `customer-id` and `customer-hash`. */
  widgets: WidgetAttributes;
  apiBase: string;
  domain: string;
  /** The widgets' script, under its content-hashed URL once it is built. */
  widgetsScriptUrl: string;
}

export interface CartLine {
  product: Product;
  variantId: string;
  label: string;
  price: number;
  quantity: number;
}

const euros = new Intl.NumberFormat("en-IE", { style: "currency", currency: "EUR" });
export const money = (amount: number) => euros.format(amount);

function layout(context: PageContext, title: string, body: Html): Html {
  const { shopper, cartCount } = context;
  // The one script tag a merchant adds: every widget of the page takes its API and domain.
  // The notice store.js fills is empty, never hidden: screen readers announce text put in a
  // live region only if the region was in the accessibility tree before.
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · The Coffee Shop</title>
        <link rel="icon" href="/assets/favicon.svg" />
        <link rel="stylesheet" href="/assets/store.css" />
        <script
          src="${context.widgetsScriptUrl}"
          data-api-base="${context.apiBase}"
          data-domain="${context.domain}"
          defer
        ></script>
        <script src="/assets/store.js" defer></script>
      </head>
      <body>
        <header class="site">
          <a class="brand" href="/">The Coffee Shop</a>
          <nav>
            <a href="/">Shop</a>
            <a href="/cart"
              >Cart${cartCount ? html` <span class="badge">${cartCount}</span>` : ""}</a
            >
            <a href="/account">${shopper ? `${shopper.firstName}'s account` : "Sign in"}</a>
          </nav>
        </header>
        <main>
          <p class="notice" data-cart-notice role="status"></p>
          ${body}
        </main>
        ${widget("loyalty-launcher", context.widgets)}
        <footer class="site">
          A demo store of the Loyalty Points platform. Nothing is for sale; codes are sandbox codes.
        </footer>
      </body>
    </html>`;
}

/** A widget tag with the attributes the store's server computed (the hash never leaves it). */
function widget(
  name: string,
  attributes: WidgetAttributes,
  own: Record<string, string> = {},
): Html {
  return trusted(`<${name} ${formatAttributes({ ...own, ...attributes })}></${name}>`);
}

export function catalogue(context: PageContext): Html {
  const cards = PRODUCTS.map((product) => {
    const variant = product.variants[0];
    return html`<li class="card">
      <a href="/products/${product.id}">
        <span class="swatch" data-swatch="${product.colour}"></span>
        <strong>${product.name}</strong>
      </a>
      <span class="category">${product.categoryIds.map((id) => CATEGORIES[id]).join(", ")}</span>
      <span class="price"
        >${product.variants.length > 1 ? "from " : ""}${money(variant.price)}</span
      >
      ${widget("loyalty-product-points", context.widgets, {
        product: String(product.id),
        categories: product.categoryIds.join(","),
        price: String(variant.price),
      })}
    </li>`;
  });
  return layout(
    context,
    "Shop",
    html`<h1>Coffee, tea and everything to brew them</h1>
      <ul class="grid">
        ${cards}
      </ul>`,
  );
}

export function productPage(context: PageContext, product: Product): Html {
  const [first] = product.variants;
  const choices = product.variants.map(
    (variant, index) =>
      html`<label class="variant">
        <input
          type="radio"
          name="variantId"
          value="${variant.id}"
          data-price="${variant.price}"
          ${index === 0 ? "checked" : ""}
        />
        ${variant.label} · ${money(variant.price)}
      </label>`,
  );
  return layout(
    context,
    product.name,
    html`<article class="product">
      <span class="swatch large" data-swatch="${product.colour}"></span>
      <div>
        <h1>${product.name}</h1>
        <p>${product.description}</p>
        <p class="price" data-product-price>${money(first.price)}</p>
        ${widget("loyalty-product-points", context.widgets, {
          product: String(product.id),
          categories: product.categoryIds.join(","),
          price: String(first.price),
        })}
        <form method="post" action="/cart/add" class="add">
          <input type="hidden" name="productId" value="${product.id}" />
          <fieldset>
            <legend>Size</legend>
            ${choices}
          </fieldset>
          <label>Quantity <input type="number" name="quantity" value="1" min="1" max="99" /></label>
          <button type="submit" class="primary">Add to cart</button>
        </form>
      </div>
    </article>`,
  );
}

export interface CartNotice {
  kind: "success" | "error";
  text: string;
}

/** What a voucher gives: "€5.00 off", "10% off", "free shipping". */
function voucherGives(voucher: Voucher): string {
  if (voucher.kind === "free_shipping") return "free shipping";
  if (voucher.kind === "percentage") return `${voucher.value ?? 0}% off`;
  return `${money(voucher.value ?? 0)} off`;
}

function unmetText(unmet: Unmet): string {
  switch (unmet.reason) {
    case "minimum":
      return `This code needs an order of ${money(unmet.minimum)} or more: add ${money(unmet.missing)} to use it.`;
    case "currency":
      return `This code is for orders in ${unmet.currency}; this store sells in euros.`;
    case "shipping-free":
      return "Shipping is free on this order already: keep the code for another one.";
  }
}

/** The cart's code with what it gives, a form to type one, and what the last action did. */
function discountSection(
  code: AppliedCode | undefined,
  unmet: Unmet | undefined,
  notice: CartNotice | undefined,
): Html {
  return html`<section id="discount" class="discount">
    <h2>Discount code</h2>
    ${notice ? html`<p class="notice ${notice.kind}" role="status">${notice.text}</p>` : ""}
    ${
      code
        ? html`<div class="applied" data-applied-code="${code.code}">
            <p><code>${code.code}</code> · ${code.name}: ${voucherGives(code.voucher)}</p>
            ${unmet ? html`<p class="notice error">${unmetText(unmet)}</p>` : ""}
            <form method="post" action="/cart/discount/remove" class="inline">
              <button type="submit">Remove the code</button>
            </form>
          </div>`
        : ""
    }
    <form method="post" action="/cart/discount" class="code-form">
      <label
        >Discount code
        <input
          type="text"
          name="code"
          required
          maxlength="${MAX_CODE_LENGTH}"
          autocomplete="off"
          spellcheck="false"
      /></label>
      <button type="submit">Apply</button>
    </form>
  </section>`;
}

export function cartPage(
  context: PageContext,
  lines: CartLine[],
  code: AppliedCode | undefined,
  notice: CartNotice | undefined,
): Html {
  if (!lines.length) {
    return layout(
      context,
      "Cart",
      html`<h1>Your cart</h1>
        <p>Your cart is empty. <a href="/">Browse the shop</a>.</p>
        ${widget("loyalty-cart-widget", context.widgets, { items: "[]" })}
        ${discountSection(code, undefined, notice)}`,
    );
  }
  const totals = priceCart(
    lines.map((line) => line.price * line.quantity),
    code?.voucher,
  );
  // The cart widget's lines: what each unit costs after the code and which rules it falls
  // under, so that the points it shows are those of what the shopper pays.
  const items = lines.map((line, index) => ({
    product: line.product.id,
    categories: line.product.categoryIds,
    price: roundCents((totals.lineTotals[index] ?? 0) / line.quantity),
    quantity: line.quantity,
  }));
  const rows = lines.map(
    (line) =>
      html`<tr>
        <td><a href="/products/${line.product.id}">${line.product.name}</a> (${line.label})</td>
        <td>
          <form method="post" action="/cart/update" class="inline">
            <input type="hidden" name="key" value="${line.product.id}:${line.variantId}" />
            <input
              type="number"
              name="quantity"
              value="${line.quantity}"
              min="0"
              max="99"
              aria-label="Quantity of ${line.product.name}"
            />
            <button type="submit">Update</button>
          </form>
        </td>
        <td class="amount">${money(line.price * line.quantity)}</td>
      </tr>`,
  );
  const checkout = context.shopper
    ? html`<form method="post" action="/checkout">
        <button type="submit" class="primary">Place the order (${money(totals.total)})</button>
      </form>`
    : html`<p><a class="button primary" href="/account?next=/cart">Sign in to check out</a></p>`;
  return layout(
    context,
    "Cart",
    html`<h1>Your cart</h1>
      <table class="cart">
        <thead>
          <tr>
            <th>Product</th>
            <th>Quantity</th>
            <th class="amount">Amount</th>
          </tr>
        </thead>
        <tbody>
          ${rows}
        </tbody>
        <tfoot>
          <tr>
            <th colspan="2">Subtotal</th>
            <td class="amount">${money(totals.subtotal)}</td>
          </tr>
          <tr>
            <th colspan="2">Shipping (free from ${money(FREE_SHIPPING_FROM)})</th>
            <td class="amount">${totals.shippingFee ? money(totals.shippingFee) : "Free"}</td>
          </tr>
          ${
            code && totals.discount
              ? html`<tr data-discount>
                  <th colspan="2">Code ${code.code}</th>
                  <td class="amount">−${money(totals.discount)}</td>
                </tr>`
              : ""
          }
          <tr>
            <th colspan="2">Total</th>
            <td class="amount" data-total>${money(totals.total)}</td>
          </tr>
        </tfoot>
      </table>
      ${widget("loyalty-cart-widget", context.widgets, { items: JSON.stringify(items) })}
      ${discountSection(code, totals.unmet, notice)} ${checkout}`,
  );
}

export interface AccountNotice {
  kind: "success" | "error";
  text: string;
  /** The section the page scrolls to after the action: the notice is shown there, in view. */
  section: "orders" | "invite";
}

const noticeIn = (section: AccountNotice["section"], notice: AccountNotice | undefined) =>
  notice?.section === section
    ? html`<p class="notice ${notice.kind}" role="status">${notice.text}</p>`
    : "";

const STATUS_TEXT: Record<Order["status"], string> = {
  paid: "Paid",
  partially_refunded: "Partly refunded",
  refunded: "Refunded",
};

function orderLine(order: Order, line: OrderLine): Html {
  const left = line.quantity - line.refundedQuantity;
  return html`<li>
    ${line.quantity} × ${line.name} · ${money(line.unitPrice * line.quantity)}
    ${line.refundedQuantity ? html`<span class="muted">(${line.refundedQuantity} returned)</span>` : ""}
    ${
      left > 0 && order.status !== "refunded"
        ? html`<form method="post" action="/orders/${order.externalId}/refund" class="inline">
            <input type="hidden" name="lineId" value="${line.lineId}" />
            <button type="submit">Return one</button>
          </form>`
        : ""
    }
  </li>`;
}

function orderCard(order: Order): Html {
  const paid = order.lines.reduce((sum, line) => sum + line.totalPaid, order.shippingAmount);
  return html`<li class="order" data-order="${order.reference}">
    <h3>
      Order ${order.reference}
      <span class="status">${STATUS_TEXT[order.status]}</span>
    </h3>
    <p class="muted">${new Date(order.placedAt).toLocaleString("en-GB")}</p>
    <ul>
      ${order.lines.map((line) => orderLine(order, line))}
    </ul>
    <p data-paid>
      Paid
      ${money(paid)}${order.shippingAmount ? `, shipping ${money(order.shippingAmount)} included` : ""}${
        order.discount
          ? ` · code ${order.discount.code} (${order.discount.name}): −${money(order.discount.amount)}`
          : ""
      }
    </p>
    ${
      order.registrationError
        ? html`<p class="notice error">
            The loyalty service could not be told of this order: ${order.registrationError}
          </p>`
        : ""
    }
    ${
      order.registered
        ? ""
        : html`<form method="post" action="/orders/${order.externalId}/register" class="inline">
            <button type="submit">Send the order to the loyalty service again</button>
          </form>`
    }
    ${
      order.refundError
        ? html`<p class="notice error">
              The loyalty service could not be told of the last refund: ${order.refundError}
            </p>
            <form method="post" action="/orders/${order.externalId}/refund/resend" class="inline">
              <button type="submit">Send the refund to the loyalty service again</button>
            </form>`
        : ""
    }
    ${
      order.status !== "refunded"
        ? html`<form method="post" action="/orders/${order.externalId}/refund" class="inline">
            <input type="hidden" name="all" value="1" />
            <button type="submit">Refund the whole order</button>
          </form>`
        : ""
    }
  </li>`;
}

export function accountPage(
  context: PageContext,
  orders: Order[],
  notice: AccountNotice | undefined,
  next: string | undefined,
): Html {
  const { shopper } = context;
  const top = shopper
    ? html`<div class="account-head">
        <h1>Hello, ${shopper.firstName}</h1>
        <form method="post" action="/account/sign-out" class="inline">
          <button type="submit">Sign out</button>
        </form>
      </div>`
    : html`<h1>Sign in</h1>
        <form method="post" action="/account/sign-in" class="sign-in">
          <p class="muted">
            The demo has no passwords: any email is an account, and the same email is the same
            customer next time.
          </p>
          <label>Email <input type="email" name="email" required autocomplete="email" /></label>
          <label
            >First name <input type="text" name="firstName" required autocomplete="given-name"
          /></label>
          ${next ? html`<input type="hidden" name="next" value="${next}" />` : ""}
          <button type="submit" class="primary">Sign in</button>
        </form>`;
  const inviteSection = shopper
    ? html`<section id="invite">
        <h2>Invite a friend</h2>
        ${noticeIn("invite", notice)}
        <p class="muted">
          They get a welcome code by email; you earn a bonus once their first order is paid.
        </p>
        <form method="post" action="/account/referrals" class="sign-in">
          <label>Their email <input type="email" name="email" required /></label>
          <label>Their first name <input type="text" name="firstName" maxlength="100" /></label>
          <button type="submit" class="primary">Send the invitation</button>
        </form>
      </section>`
    : "";
  const ordersSection = shopper
    ? html`<section id="orders">
        <h2>Your orders</h2>
        ${noticeIn("orders", notice)}
        ${
          orders.length
            ? html`<ul class="orders">
                ${orders.map(orderCard)}
              </ul>`
            : html`<p>No order yet. <a href="/">Browse the shop</a>.</p>`
        }
      </section>`
    : "";
  return layout(
    context,
    shopper ? "Your account" : "Sign in",
    html`${top} ${widget("loyalty-program-presentation", context.widgets)} ${ordersSection}
    ${inviteSection}`,
  );
}

/** What a welcome code gives, in a sentence. */
function voucherText({ voucher }: RefereeCodeResponse): string {
  const gives = voucherGives(voucher);
  return voucher.minimumOrderAmount
    ? `${gives} an order of ${money(voucher.minimumOrderAmount)} or more`
    : `${gives} your first order`;
}

/** Where an invitation's link lands: the invited friend's own code. */
export function welcomePage(context: PageContext, code: RefereeCodeResponse): Html {
  return layout(
    context,
    "Welcome",
    html`<h1>Welcome to The Coffee Shop</h1>
      <p>A friend invited you. Here is your code: ${voucherText(code)}.</p>
      <p class="code"><code data-referee-code>${code.code}</code></p>
      ${
        code.expiresAt
          ? html`<p class="muted">
              Valid until ${new Date(code.expiresAt).toLocaleDateString("en-GB")}.
            </p>`
          : ""
      }
      <form method="post" action="/cart/discount">
        <input type="hidden" name="code" value="${code.code}" />
        <button type="submit" class="primary">Use this code in my cart</button>
      </form>
      <p>
        <a class="button primary" href="/account">Create your account</a>
        <a class="button" href="/">Browse the shop</a>
      </p>`,
  );
}

export function messagePage(context: PageContext, title: string, message: string): Html {
  return layout(
    context,
    title,
    html`<h1>${title}</h1>
      <p>${message}</p>
      <p><a href="/">Back to the shop</a></p>`,
  );
}
