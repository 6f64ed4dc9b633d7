import { execFileSync } from "node:child_process";
import { PARAMETER_EXAMPLES } from "@loyalty/shared-types";
import { describe, expect, it } from "vitest";
import { customerHash, formatAttributes } from "../src/hash.js";
import { CREDENTIALS } from "./support/api.js";

/** What `openssl dgst -sha512 -hmac <key>` prints for `message`: the hex digest. */
function openssl(message: string, key: string): string {
  const output = execFileSync("openssl", ["dgst", "-sha512", "-hmac", key], {
    input: message,
    encoding: "utf8",
  });
  return output.trim().split("= ").at(-1)!;
}

describe("customerHash", () => {
  it.each([
    [1001, "st_Qm7xK2pR9vT4wZ8nB3cY", "lk_7f3k9q2m4x_UNhY4JhezH9gQYqvDMWrWH9CwlcKiECVqejMrND2VFw"],
    ["42", "store-ref", "key"],
    [Number.MAX_SAFE_INTEGER, "a-b_c", "lk_x"],
    [0, "ref", "k"],
  ])("equals openssl dgst -sha512 -hmac for %s", (externalId, storeReference, apiKey) => {
    const hash = customerHash(externalId, { storeReference, apiKey });

    expect(hash).toBe(openssl(String(externalId), `${storeReference}:${apiKey}`));
    expect(hash).toMatch(/^[0-9a-f]{128}$/);
  });

  it("gives the hash of shared-types' examples", () => {
    expect(customerHash(1001, CREDENTIALS)).toBe(PARAMETER_EXAMPLES.hash);
  });

  it("hashes a number and its text alike", () => {
    expect(customerHash(1001, CREDENTIALS)).toBe(customerHash("1001", CREDENTIALS));
  });

  it.each([-1, 1.5, Number.NaN, 2 ** 60, "", "12a", " 12", "1e3"])(
    "refuses %s, which no customer id is",
    (externalId) => {
      expect(() => customerHash(externalId, CREDENTIALS)).toThrow(TypeError);
    },
  );
});

describe("formatAttributes", () => {
  it('writes name="value" pairs, escaped, leaving out undefined ones', () => {
    expect(
      formatAttributes({
        domain: "https://shop.example",
        "data-x": `"><script>alert('&')</script>`,
        "customer-id": undefined,
      }),
    ).toBe(
      'domain="https://shop.example" data-x="&quot;&gt;&lt;script&gt;alert(&#39;&amp;&#39;)&lt;/script&gt;"',
    );
  });
});
