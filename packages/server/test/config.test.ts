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

  it("refuses TRUST_PROXY=true, which lets any client pick its address, and says what to set", () => {
    for (const value of ["true", "TRUE"]) {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
        "TRUST_PROXY: `true` trusts any client's X-Forwarded-For (a client could pick its own address and escape every per-address limit); set the number of proxies in front (1) or their addresses (10.0.0.0/8)",
      );
    }
  });

  it("trusts a number of proxies or their addresses and subnets; false trusts none", () => {
    expect(loadConfig({}).trustProxy).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: "false" }).trustProxy).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: "2" }).trustProxy).toBe(2);
    expect(
      loadConfig({
        TRUST_PROXY: "loopback,10.0.0.0/8, 192.168.1.7 ,fd00::/8,172.16.0.0/255.240.0.0",
      }).trustProxy,
    ).toBe("loopback, 10.0.0.0/8, 192.168.1.7, fd00::/8, 172.16.0.0/255.240.0.0");
    expect(() => loadConfig({ TRUST_PROXY: "10.0.0.0/33, lb.internal, 10.0.0.1" })).toThrow(
      /TRUST_PROXY: must be the number of proxies in front \(1\) or their addresses and subnets.*; not "10\.0\.0\.0\/33", "lb\.internal"$/m,
    );
    // As wide as the internet: `true` under another name.
    expect(() =>
      loadConfig({ TRUST_PROXY: "0.0.0.0/0, ::/0, 0.0.0.0/0.0.0.0, 10.0.0.0/7" }),
    ).toThrow(/; not "0\.0\.0\.0\/0", "::\/0", "0\.0\.0\.0\/0\.0\.0\.0", "10\.0\.0\.0\/7"$/m);
  });

  it("bounds slow clients with explicit HTTP timeouts, keep-alive past a load balancer's 60 s", () => {
    expect(loadConfig({}).http).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 65_000,
    });
    expect(
      loadConfig({
        HTTP_HEADERS_TIMEOUT_MS: "2000",
        HTTP_REQUEST_TIMEOUT_MS: "5000",
        HTTP_KEEP_ALIVE_TIMEOUT_MS: "75000",
      }).http,
    ).toEqual({ headersTimeoutMs: 2_000, requestTimeoutMs: 5_000, keepAliveTimeoutMs: 75_000 });
    expect(() =>
      loadConfig({ HTTP_HEADERS_TIMEOUT_MS: "40000", HTTP_REQUEST_TIMEOUT_MS: "30000" }),
    ).toThrow(/HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS \(30000\)/);
    expect(() => loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: "0" })).toThrow(
      /HTTP_KEEP_ALIVE_TIMEOUT_MS/,
    );
  });

  it("bounds the heap's growth at twice what a full collection kept, unless told otherwise", () => {
    expect(loadConfig({}).heapGrowthPercent).toBe(100);
    expect(loadConfig({ HEAP_GROWTH_PERCENT: "0" }).heapGrowthPercent).toBe(0);
    for (const value of ["-1", "301", "1.5", "lots"]) {
      expect(() => loadConfig({ HEAP_GROWTH_PERCENT: value })).toThrow(/HEAP_GROWTH_PERCENT/);
    }
  });

  it("serves metrics only when METRICS_PORT is set, apart from the API's port", () => {
    expect(loadConfig({}).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: "" }).metrics).toBeUndefined();
    expect(loadConfig({ METRICS_PORT: "9464", HOST: "10.0.0.5" }).metrics).toEqual({
      port: 9464,
      host: "10.0.0.5",
    });
    expect(loadConfig({ METRICS_PORT: "9464", METRICS_HOST: "127.0.0.1" }).metrics).toEqual({
      port: 9464,
      host: "127.0.0.1",
    });
    expect(() => loadConfig({ METRICS_PORT: "metrics" })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ METRICS_PORT: "70000" })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ METRICS_PORT: "3000" })).toThrow(
      "METRICS_PORT: must differ from PORT (3000): the metrics are served apart from the API",
    );
  });

  it("counts the rate limits in Redis only when RATE_LIMIT_REDIS_URL names one", () => {
    expect(loadConfig({}).rateLimits.redis).toBeUndefined();
    expect(loadConfig({ RATE_LIMIT_REDIS_URL: "" }).rateLimits.redis).toBeUndefined();
    expect(
      loadConfig({ RATE_LIMIT_REDIS_URL: "rediss://:pw@cache.internal:6380/2" }),
    ).toMatchObject({
      rateLimits: {
        redis: { url: "rediss://:pw@cache.internal:6380/2", prefix: "loyalty:rl:", timeoutMs: 100 },
      },
    });
    expect(
      loadConfig({ RATE_LIMIT_REDIS_URL: "redis://cache", RATE_LIMIT_REDIS_PREFIX: "staging:rl:" })
        .rateLimits.redis,
    ).toEqual({ url: "redis://cache", prefix: "staging:rl:", timeoutMs: 100 });
    expect(
      loadConfig({ RATE_LIMIT_REDIS_URL: "redis://cache", RATE_LIMIT_REDIS_TIMEOUT_MS: "20" })
        .rateLimits.redis?.timeoutMs,
    ).toBe(20);
    expect(() => loadConfig({ RATE_LIMIT_REDIS_TIMEOUT_MS: "0" })).toThrow(
      /RATE_LIMIT_REDIS_TIMEOUT_MS/,
    );
    for (const url of ["cache.internal:6379", "http://cache.internal", "redis://:secret@"]) {
      expect(() => loadConfig({ RATE_LIMIT_REDIS_URL: url })).toThrow(
        "RATE_LIMIT_REDIS_URL: must be a redis:// or rediss:// URL (redis://:password@host:6379/0)",
      );
    }
    expect(() => loadConfig({ RATE_LIMIT_REDIS_URL: "redis://:secret@cache/rate" })).toThrow(
      "RATE_LIMIT_REDIS_URL: must name a database by its number, if at all (redis://host:6379/0)",
    );
    // The message never repeats the URL, whose password would reach the logs.
    expect(() => loadConfig({ RATE_LIMIT_REDIS_URL: "redis://:secret@cache/rate" })).not.toThrow(
      /secret/,
    );
    expect(() => loadConfig({ RATE_LIMIT_REDIS_PREFIX: "two words" })).toThrow(
      "RATE_LIMIT_REDIS_PREFIX: must be 1 to 64 characters, without spaces",
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
