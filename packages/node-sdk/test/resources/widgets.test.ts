import { OPERATION_EXAMPLES } from "@loyalty/shared-types";
import { describe, expect, it } from "vitest";
import { LoyaltyNotFoundError } from "../../src/index.js";
import { answer, client, json, problem, useMockApi } from "../support/api.js";

useMockApi();

describe("widgets", () => {
  it.each([
    ["cart", "/store/widget/cart", OPERATION_EXAMPLES.getCartWidget.response],
    [
      "productPoints",
      "/store/widget/product-points",
      OPERATION_EXAMPLES.getProductPointsWidget.response,
    ],
    [
      "programPresentation",
      "/store/widget/program-presentation",
      OPERATION_EXAMPLES.getProgramPresentationWidget.response,
    ],
    ["launcher", "/store/widget/launcher", OPERATION_EXAMPLES.getLauncherWidget.response],
  ] as const)("%s GETs %s for the store's domain", async (method, path, response) => {
    const seen = answer("get", path, () => json(response));

    const configuration = await client().widgets[method]();

    expect(configuration).toEqual(response);
    expect(Object.fromEntries(seen[0]!.url.searchParams)).toEqual({
      domain: "https://shop.example",
    });
  });

  it("throws not found for an unknown domain", async () => {
    answer("get", "/store/widget/cart", () => problem("not-found", 404));

    await expect(client().widgets.cart()).rejects.toBeInstanceOf(LoyaltyNotFoundError);
  });
});
