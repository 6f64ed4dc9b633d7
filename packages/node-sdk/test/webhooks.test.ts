import { createHmac } from "node:crypto";
import { WEBHOOK_SIGNATURE_HEADER as SHARED_HEADER } from "@loyalty/shared-types";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LoyaltySignatureError, webhooks, WEBHOOK_SIGNATURE_HEADER } from "../src/index.js";

/** The header as the server writes it (README, "Webhooks"), written independently of the SDK. */
function signWebhook(secret: string, body: string, timestamp: number): string {
  const v1 = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
  return `t=${timestamp},v1=${v1}`;
}

const SECRET = "whsec_3vQ8mZ1pK7xR2nT5wY9cB4dF6gH0jL2sA8eU1iO3rW5";
const EVENT = {
  id: "evt_01J8",
  type: "POINTS_EARNED",
  createdAt: "2026-09-14T09:12:04.000Z",
  data: {
    order: { externalId: "5001", externalReference: "#5001" },
    customer: { externalId: 1001 },
    points: 110,
    balance: 1140,
  },
};
const BODY = JSON.stringify(EVENT);
const now = () => Math.floor(Date.now() / 1000);

function failure(run: () => unknown): LoyaltySignatureError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(LoyaltySignatureError);
    return error as LoyaltySignatureError;
  }
  throw new Error("verify accepted the delivery");
}

afterEach(() => {
  vi.useRealTimers();
});

describe("webhooks.verify", () => {
  it("accepts what the server signs, and returns the typed event", () => {
    const header = signWebhook(SECRET, BODY, now());

    const event = webhooks.verify(BODY, header, SECRET, { tolerance: 300 });

    expect(event).toEqual(EVENT);
    if (event.type === "POINTS_EARNED") expect(event.data.points).toBe(110);
  });

  it("accepts the body as a Buffer, and the header as Node gives it", () => {
    const header = signWebhook(SECRET, BODY, now());

    expect(webhooks.verify(Buffer.from(BODY), [header], SECRET).id).toBe("evt_01J8");
  });

  it("accepts any of several v1 signatures (a secret being rotated)", () => {
    const t = now();
    const other = signWebhook("whsec_old", BODY, t).split(",")[1]!;
    const header = `t=${t},${other},${signWebhook(SECRET, BODY, t).split(",")[1]!}`;

    expect(webhooks.verify(BODY, header, SECRET).id).toBe("evt_01J8");
  });

  it("refuses a body changed after signing", () => {
    const header = signWebhook(SECRET, BODY, now());

    const error = failure(() => webhooks.verify(BODY.replace("110", "999"), header, SECRET));
    expect(error.message).toMatch(/does not match/);
  });

  it("refuses another endpoint's secret", () => {
    const header = signWebhook("whsec_another", BODY, now());

    failure(() => webhooks.verify(BODY, header, SECRET));
  });

  it("refuses a signature older or newer than the tolerance", () => {
    const old = signWebhook(SECRET, BODY, now() - 301);
    const future = signWebhook(SECRET, BODY, now() + 301);

    expect(failure(() => webhooks.verify(BODY, old, SECRET)).message).toMatch(/300 s/);
    failure(() => webhooks.verify(BODY, future, SECRET));
    expect(webhooks.verify(BODY, old, SECRET, { tolerance: 600 }).id).toBe("evt_01J8");
  });

  it("refuses a replay once the tolerance has passed", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const header = signWebhook(SECRET, BODY, now());
    expect(webhooks.verify(BODY, header, SECRET).id).toBe("evt_01J8");

    vi.setSystemTime(Date.now() + 301_000);

    failure(() => webhooks.verify(BODY, header, SECRET));
  });

  it.each([
    [undefined, /No loyalty-signature header/],
    ["", /No loyalty-signature header/],
    ["v1=abc", /malformed/],
    [`t=${Math.floor(Date.now() / 1000)}`, /malformed/],
    [`t=soon,v1=${"a".repeat(64)}`, /malformed/],
    [`t=${Math.floor(Date.now() / 1000)},v1=${"A".repeat(64)}`, /malformed/],
  ])("refuses the header %j", (header, message) => {
    expect(failure(() => webhooks.verify(BODY, header, SECRET)).message).toMatch(message);
  });

  it("refuses a signed body that is not an event", () => {
    const body = "[1,2]";

    failure(() => webhooks.verify(body, signWebhook(SECRET, body, now()), SECRET));
  });

  it("explains that it needs the raw body, not a parsed one", () => {
    expect(() => webhooks.verify(EVENT as never, "t=1,v1=00", SECRET)).toThrow(/raw request body/);
  });

  it("needs the secret", () => {
    expect(() => webhooks.verify(BODY, "t=1,v1=00", "")).toThrow(/secret/);
  });
});

describe("webhooks.sign", () => {
  it("signs as the server does, for testing a handler", () => {
    expect(webhooks.sign(BODY, SECRET, { timestamp: 1_789_000_000 })).toBe(
      signWebhook(SECRET, BODY, 1_789_000_000),
    );
    expect(webhooks.verify(BODY, webhooks.sign(BODY, SECRET), SECRET).id).toBe("evt_01J8");
  });
});

describe("WEBHOOK_SIGNATURE_HEADER", () => {
  it("is shared-types' header name", () => {
    expect(WEBHOOK_SIGNATURE_HEADER).toBe(SHARED_HEADER);
  });
});
