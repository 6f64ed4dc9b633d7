import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Outbound } from "../../src/net/outbound.js";
import { type PlatformAdapter, PlatformError } from "../../src/modules/platforms/platform.types.js";
import { PrestaShopPlatform } from "../../src/modules/platforms/prestashop.platform.js";
import { ShopifyPlatform } from "../../src/modules/platforms/shopify.platform.js";
import { WooCommercePlatform } from "../../src/modules/platforms/woocommerce.platform.js";
import { loopbackListener, streamFiller, type LoopbackListener } from "../support/loopback.js";

/**
 * Each adapter against a real platform on loopback that answers 300 MB, made as it is sent:
 * the call fails as platform-unavailable after reading at most the cap, and the process's
 * memory barely moves. (The platform is on loopback, so the outbound module allows private
 * addresses here, as ALLOW_PRIVATE_URLS would: the cap is what is tested.)
 */

const MIB = 1024 * 1024;
const ANSWER_BYTES = 300 * MIB;
/** The most the process may grow while a platform answers 300 MB. */
const MEMORY_BUDGET = 64 * MIB;

let platform: LoopbackListener;
/** Whether the platform announces its answer's length (else it sends it chunked). */
let announce = false;
const outbound = new Outbound({ allowPrivateUrls: true });

beforeAll(async () => {
  platform = await loopbackListener((req, res) => {
    req.resume();
    res.statusCode = req.method === "POST" ? 201 : 200;
    streamFiller(res, ANSWER_BYTES, { announce });
  });
});
afterAll(async () => {
  await platform.close();
  await outbound.close();
});

const ADAPTERS: Record<string, () => PlatformAdapter> = {
  WooCommerce: () =>
    new WooCommercePlatform(
      {
        platform: "woocommerce",
        url: platform.url,
        consumerKey: "ck_size",
        consumerSecret: "cs_size",
      },
      { timeoutMs: 30_000, outbound },
    ),
  Shopify: () =>
    new ShopifyPlatform(
      {
        platform: "shopify",
        url: platform.url,
        accessToken: "shpat_size",
        apiVersion: "2026-10",
      },
      { timeoutMs: 30_000, outbound },
    ),
  PrestaShop: () =>
    new PrestaShopPlatform(
      {
        platform: "prestashop",
        url: platform.url,
        webserviceKey: "SIZE5T6Y7U8I9O0P1A2S3D4F5G6H7J8K",
        languageId: 1,
        currencyId: 1,
      },
      { timeoutMs: 30_000, outbound },
    ),
};

/** The most the resident memory rose above where it started while `call` ran. */
async function peakGrowth(
  call: () => Promise<unknown>,
): Promise<{ growth: number; outcome: unknown }> {
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    const outcome = await call().then(
      () => "resolved",
      (error: unknown) => error,
    );
    peak = Math.max(peak, process.memoryUsage.rss());
    return { growth: peak - baseline, outcome };
  } finally {
    clearInterval(sampler);
  }
}

describe.each([
  { announced: true, how: "with a Content-Length" },
  { announced: false, how: "chunked" },
])("a platform answering 300 MB $how", ({ announced }) => {
  beforeAll(() => {
    announce = announced;
  });

  it.each(Object.keys(ADAPTERS))(
    "%s fails as platform-unavailable, reading at most the cap",
    async (name) => {
      const adapter = (ADAPTERS[name] as () => PlatformAdapter)();
      const requestsBefore = platform.requests;
      const { growth, outcome } = await peakGrowth(() =>
        adapter.createDiscountCode({
          code: "SIZE-TEST-0001",
          title: "Loyalty reward",
          terms: {
            kind: "percentage",
            value: 10,
            currency: null,
            minimumOrderAmount: null,
            validityDays: 30,
          },
          customer: { externalId: 7, email: "size@example.com" },
          startsAt: new Date(),
          expiresAt: null,
        }),
      );
      expect(outcome).toBeInstanceOf(PlatformError);
      expect(outcome).toMatchObject({ reason: "platform-unavailable" });
      expect((outcome as PlatformError).message).toContain(`larger than the ${MIB} bytes`);
      expect(platform.requests).toBe(requestsBefore + 1);
      expect(growth).toBeLessThan(MEMORY_BUDGET);
    },
  );
});
