/**
 * The demo page's data: a mock of the API (msw, in this page only) serving each variant's
 * configuration by store domain, or, with `?api=…&domain=…[&customer=…&hash=…]`, a real server.
 */
import { http, HttpResponse } from "msw";
import { setupWorker } from "msw/browser";
import type { WidgetResponses } from "../src/core/api.js";
import {
  CUSTOMER,
  cartResponse,
  history,
  presentationResponse,
  productPointsResponse,
  rewards,
} from "../test/support/fixtures.js";

const params = new URLSearchParams(location.search);
const widgets = document.querySelectorAll<HTMLElement>(
  "loyalty-product-points, loyalty-cart-widget, loyalty-program-presentation",
);

const variants: Record<string, Partial<WidgetResponses>> = {
  default: {
    "product-points": productPointsResponse(),
    cart: cartResponse(),
    "program-presentation": presentationResponse(),
  },
  fr: {
    "product-points": productPointsResponse(
      { template: "Gagnez {points} points avec ce produit", showIcon: false },
      { language: "fr" },
    ),
  },
  "ratio-left-card": {
    "program-presentation": presentationResponse({
      imageFit: "ratio",
      mobileLayout: "stacked",
      contentPosition: "left",
      contentCard: true,
      textColor: "#1d1d1f",
      isRawHtml: true,
      text: "<h2>The Coffee Club</h2><p>Every euro you spend brings you <strong>closer to a treat</strong>.</p>",
    }),
  },
  "right-url-fr": {
    "program-presentation": presentationResponse(
      {
        backgroundImageUrl: "",
        mobileBackgroundImageUrl: "",
        backgroundColor: "#6b3fa0",
        contentPosition: "right",
        primaryButtonText: "Découvrir le club",
        primaryButtonAction: "url",
        primaryButtonUrl: "https://shop.example/club",
        secondaryButtonText: "Questions",
        secondaryButtonAction: "scroll-faq",
        text: "Cumulez des points à chaque commande.",
      },
      {},
      { language: "fr" },
    ),
  },
};

/** A banner image: a gradient with the size it says, so `imageFit: ratio` shows its ratio. */
function banner(width: number, height: number): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
    <defs><linearGradient id="g" x1="0" x2="1" y1="0" y2="1"><stop offset="0" stop-color="#3a1c71"/><stop offset="0.5" stop-color="#d76d77"/><stop offset="1" stop-color="#ffaf7b"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/></svg>`;
}

async function mockApi(): Promise<void> {
  let balance = history().balance;
  let codes = 0;
  const variant = (request: Request) =>
    variants[
      new URL(new URL(request.url).searchParams.get("domain") ?? "").hostname.split(".")[0] ?? ""
    ] ?? {};
  const config = (kind: "product-points" | "cart" | "program-presentation") =>
    http.get(`https://api.demo.test/store/widget/${kind}`, ({ request }) =>
      HttpResponse.json(variant(request)[kind] ?? variants["default"]![kind]),
    );
  const worker = setupWorker(
    config("product-points"),
    config("cart"),
    config("program-presentation"),
    http.get("https://api.demo.test/reward/list", () => HttpResponse.json(rewards)),
    http.get("https://api.demo.test/point/product-points/calculate", ({ request }) =>
      HttpResponse.json({
        points: Math.floor(Number(new URL(request.url).searchParams.get("price"))),
        type: "default",
        id: 1,
      }),
    ),
    http.get("https://api.demo.test/point/user-history/:id", () =>
      HttpResponse.json(history({ balance })),
    ),
    http.post("https://api.demo.test/reward/claim/:id", async ({ request }) => {
      const { rewardId } = (await request.json()) as { rewardId: number };
      const reward = rewards.find((candidate) => candidate.id === rewardId);
      if (!reward || reward.triggerValue > balance) {
        return HttpResponse.json({ code: null, reason: "insufficient-balance" }, { status: 404 });
      }
      balance -= reward.triggerValue;
      codes += 1;
      return HttpResponse.json(
        {
          code: `DEMO-${String(codes).padStart(4, "0")}`,
          rewardId,
          pointsSpent: reward.triggerValue,
          balance,
          expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
          voucher: reward.voucher,
        },
        { status: 201 },
      );
    }),
    http.get("https://cdn.shop.example/banner.png", () =>
      HttpResponse.text(banner(1600, 500), { headers: { "content-type": "image/svg+xml" } }),
    ),
    http.get("https://cdn.shop.example/banner-mobile.png", () =>
      HttpResponse.text(banner(750, 600), { headers: { "content-type": "image/svg+xml" } }),
    ),
  );
  await worker.start({ quiet: true, onUnhandledRequest: "bypass" });
}

const api = params.get("api");
if (!api) await mockApi();
for (const widget of widgets) {
  widget.setAttribute("api-base", api ?? "https://api.demo.test");
  widget.setAttribute(
    "domain",
    params.get("domain") ?? `https://${widget.dataset["variant"] ?? "default"}.shop.example`,
  );
  if (widget.hasAttribute("data-identified")) {
    widget.setAttribute("customer-id", params.get("customer") ?? CUSTOMER.id);
    widget.setAttribute("customer-hash", params.get("hash") ?? CUSTOMER.hash);
  }
}

// Registered once every tag has its attributes, as on a store's page.
await import("../src/index.js");

document.querySelector<HTMLSelectElement>("#variant")?.addEventListener("change", (event) => {
  document
    .querySelector("#variant-points")
    ?.setAttribute("price", (event.target as HTMLSelectElement).value);
});
