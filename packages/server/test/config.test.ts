import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config.js";

describe("configuration", () => {
  it("starts with defaults that need nothing set", () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.masterKey).toBeUndefined();
    expect(config.problemBaseUri).toBe("https://loyalty.dev/problems");
    expect(config.migrateOnStart).toBe(true);
  });

  it("names every invalid variable and says what it must be", () => {
    try {
      loadConfig({
        PORT: "eighty",
        DATABASE_URL: "mysql://x",
        LOYALTY_MASTER_KEY: "short",
        SMTP_URL: "http://x",
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).toContain("PORT");
      expect(message).toContain(
        "DATABASE_URL: must be a postgres:// or postgresql:// connection URL",
      );
      expect(message).toContain("LOYALTY_MASTER_KEY: must be 32 bytes");
      expect(message).toContain("SMTP_URL");
    }
  });

  it("requires a master key in production", () => {
    expect(() => loadConfig({ NODE_ENV: "production" })).toThrow(
      /LOYALTY_MASTER_KEY: required in production/,
    );
  });

  it("strips a trailing slash from the problem base URI", () => {
    expect(loadConfig({ PROBLEM_BASE_URI: "https://errors.shop.example/p/" }).problemBaseUri).toBe(
      "https://errors.shop.example/p",
    );
  });

  it("refuses to settle claims before their platform could have answered", () => {
    expect(() =>
      loadConfig({ PLATFORM_TIMEOUT_MS: "10000", CLAIM_RECONCILE_AFTER_MS: "15000" }),
    ).toThrow(/CLAIM_RECONCILE_AFTER_MS: must be at least twice PLATFORM_TIMEOUT_MS \(20000\)/);
    expect(
      loadConfig({ PLATFORM_TIMEOUT_MS: "10000", CLAIM_RECONCILE_AFTER_MS: "20000" })
        .claimReconcileAfterMs,
    ).toBe(20_000);
  });
});
