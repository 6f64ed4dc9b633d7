import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_MASTER_KEY } from "./support/app.js";
import { runCommand } from "./support/cli.js";
import { createTestDatabase, endPool, type TestDatabase } from "./support/database.js";
import { environment, runCli } from "./support/processes.js";

let database: TestDatabase;
let env: NodeJS.ProcessEnv;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createTestDatabase();
  env = environment({ DATABASE_URL: database.url, LOYALTY_MASTER_KEY: TEST_MASTER_KEY });
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
});
afterAll(async () => {
  await endPool(pool);
  await database.drop();
});

async function count(table: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`);
  return Number(rows[0]?.n);
}

describe("loyalty CLI", () => {
  it("reports an up-to-date database", async () => {
    const result = await runCommand(["migrate", "--json"], env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ applied: [] });
  });

  it("creates a store, two keys, lists and revokes them", async () => {
    const created = await runCommand(
      [
        "store",
        "create",
        "--domain",
        "https://Cli-Shop.example/",
        "--reference",
        "cli-shop",
        "--currency",
        "USD",
        "--json",
      ],
      env,
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual({
      reference: "cli-shop",
      domain: "https://cli-shop.example",
      name: "",
      language: "en",
      currency: "USD",
    });

    const first = JSON.parse(
      (await runCommand(["key", "create", "--store", "cli-shop", "--json"], env)).stdout,
    );
    const second = JSON.parse(
      (await runCommand(["key", "create", "--store", "cli-shop", "--json"], env)).stdout,
    );
    expect(first.key).toMatch(/^lk_[a-z0-9]{10}_[A-Za-z0-9_-]{43}$/);
    expect(first.key.startsWith(`${first.id}_`)).toBe(true);
    expect(second.key).not.toBe(first.key);

    const listed = JSON.parse(
      (await runCommand(["key", "list", "--store", "cli-shop", "--json"], env)).stdout,
    );
    expect(listed).toHaveLength(2);
    expect(listed.map((k: { id: string }) => k.id).sort()).toEqual([first.id, second.id].sort());
    expect(JSON.stringify(listed)).not.toContain(first.key);

    const revoked = await runCommand(["key", "revoke", first.id, "--json"], env);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: first.id, active: false });
    const after = JSON.parse((await runCommand(["key", "list", "--json"], env)).stdout);
    expect(after.find((k: { id: string }) => k.id === first.id).active).toBe(false);
    expect(after.find((k: { id: string }) => k.id === second.id).active).toBe(true);
  });

  it.each([
    [["store", "create", "--domain", "shop.example"], /--domain: must be an origin/],
    [["store", "create", "--domain", "https://shop.example/path"], /--domain: must be an origin/],
    [["store", "create", "--domain", "https://ok.example", "--currency", "euro"], /--currency/],
    [["store", "create", "--domain", "https://ok.example", "--reference", "a b"], /--reference/],
    [["store", "create"], /required option '--domain <origin>' not specified/],
    [["key", "create", "--store", "no-such-store"], /No store has the reference no-such-store/],
    [["key", "revoke", "lk_0000000000"], /No API key has the id lk_0000000000/],
    [["frobnicate"], /unknown command 'frobnicate'/],
  ])(
    "refuses %j with a clear message, a non-zero exit, and writes nothing",
    async (args, message) => {
      const before = [await count("stores"), await count("api_keys")];
      const result = await runCommand(args, env);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(message);
      expect([await count("stores"), await count("api_keys")]).toEqual(before);
    },
  );

  it("refuses a second store on the same domain", async () => {
    const result = await runCommand(
      ["store", "create", "--domain", "https://cli-shop.example", "--json"],
      env,
    );
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        message: "A store with domain https://cli-shop.example already exists.",
        reason: "validation-failed",
      },
    });
  });

  it("loads the demo store with rules, clubs, rewards, widget configurations and a key", async () => {
    const result = await runCommand(["demo", "--domain", "https://demo.example", "--json"], env);
    expect(result.code).toBe(0);
    const demo = JSON.parse(result.stdout);
    expect(demo.store.domain).toBe("https://demo.example");
    expect(demo.key.key).toMatch(/^lk_/);
    const { rows } = await pool.query(
      `SELECT (SELECT count(*) FROM attribution_rules WHERE store_id = s.id)::int AS rules,
              (SELECT count(*) FROM clubs WHERE store_id = s.id)::int AS clubs,
              (SELECT count(*) FROM rewards WHERE store_id = s.id)::int AS rewards,
              (SELECT array_agg(kind ORDER BY kind) FROM widget_configurations WHERE store_id = s.id) AS widgets
       FROM stores s WHERE s.domain = 'https://demo.example'`,
    );
    expect(rows[0]).toEqual({
      rules: 4,
      clubs: 3,
      rewards: 3,
      widgets: ["cart", "launcher", "product-points", "program-presentation"],
    });

    // The demo's links lead to the demo store's own pages, wherever it runs.
    const links = await pool.query<{ kind: string; config: string }>(
      `SELECT w.kind, w.config::text AS config FROM widget_configurations w
       JOIN stores s ON s.id = w.store_id WHERE s.domain = 'https://demo.example' ORDER BY w.kind`,
    );
    const urls = links.rows.flatMap(({ config }) => config.match(/https?:\/\/[^"]+/g) ?? []);
    expect(urls).toEqual([
      "https://demo.example/account",
      "https://demo.example/account",
      "https://demo.example/account/register",
      "https://demo.example/account",
    ]);

    const again = await runCommand(["demo", "--domain", "https://demo.example"], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already exists");

    // Its reference can be found again, to give it a new key.
    const list = await runCommand(["store", "list", "--json"], env);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toContainEqual(
      expect.objectContaining({ reference: demo.store.reference, domain: "https://demo.example" }),
    );
  });

  it("connects a store to its platform from JSON on stdin, the credentials kept encrypted", async () => {
    const connection = {
      platform: "woocommerce",
      url: "https://shop.example/",
      consumerKey: "ck_cli_0123456789",
      consumerSecret: "cs_cli_secret_9876543210",
    };
    const result = await runCommand(
      ["platform", "set", "--store", "cli-shop", "--json"],
      env,
      JSON.stringify(connection),
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      platform: "woocommerce",
      url: "https://shop.example",
    });
    expect(result.stdout + result.stderr).not.toContain(connection.consumerSecret);
    const { rows } = await pool.query<{ platform: string; dump: string }>(
      `SELECT platform, encode(platform_credentials, 'escape') AS dump FROM stores
       WHERE reference = 'cli-shop'`,
    );
    expect(rows[0]?.platform).toBe("woocommerce");
    expect(rows[0]?.dump).not.toContain(connection.consumerSecret);
  });

  it.each([
    [["platform", "set", "--store", "cli-shop"], '{"platform":"shopify","url":"ftp://x"}', "/url"],
    [["platform", "set", "--store", "cli-shop"], "not json", "not a JSON document"],
    [
      ["platform", "set", "--store", "nobody"],
      '{"platform":"sandbox"}',
      "No store has the reference",
    ],
    [
      ["widget", "set", "--store", "cli-shop", "--kind", "cart"],
      '{"enabled":true}',
      "/earnTemplate",
    ],
    [["widget", "set", "--store", "cli-shop", "--kind", "banner"], "{}", "--kind must be one of"],
    [
      ["referral-program", "set", "--store", "cli-shop"],
      '{"referrerBonus":-1,"refereeVoucher":{"kind":"percentage","value":500,"currency":null,"minimumOrderAmount":null,"validityDays":null}}',
      "/refereeVoucher/value",
    ],
  ])("refuses %j with %s, naming what is wrong, and changes nothing", async (args, input, said) => {
    const before = await pool.query(
      `SELECT s.platform, s.platform_credentials,
              (SELECT count(*) FROM widget_configurations w WHERE w.store_id = s.id) AS widgets,
              (SELECT count(*) FROM referral_programs p WHERE p.store_id = s.id) AS programs
       FROM stores s WHERE reference = 'cli-shop'`,
    );
    const result = await runCommand(args, env, input);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(said);
    const after = await pool.query(
      `SELECT s.platform, s.platform_credentials,
              (SELECT count(*) FROM widget_configurations w WHERE w.store_id = s.id) AS widgets,
              (SELECT count(*) FROM referral_programs p WHERE p.store_id = s.id) AS programs
       FROM stores s WHERE reference = 'cli-shop'`,
    );
    expect(after.rows).toEqual(before.rows);
  });

  it("sets a widget's configuration and a referral programme from stdin", async () => {
    const program = {
      referrerBonus: 300,
      refereeVoucher: {
        kind: "percentage",
        value: 15,
        currency: null,
        minimumOrderAmount: null,
        validityDays: 14,
      },
    };
    const saved = await runCommand(
      ["referral-program", "set", "--store", "cli-shop"],
      env,
      JSON.stringify(program),
    );
    expect(saved.code).toBe(0);
    const product = {
      enabled: true,
      template: "{points} points to earn",
      hideWhenZero: false,
      showIcon: false,
      textColor: "#222222",
      accentColor: "",
    };
    const widget = await runCommand(
      ["widget", "set", "--store", "cli-shop", "--kind", "product-points"],
      env,
      JSON.stringify(product),
    );
    expect(widget.code).toBe(0);
    const { rows } = await pool.query(
      `SELECT p.referrer_bonus, p.referee_voucher_kind, w.config
       FROM stores s
       JOIN referral_programs p ON p.store_id = s.id
       JOIN widget_configurations w ON w.store_id = s.id AND w.kind = 'product-points'
       WHERE s.reference = 'cli-shop'`,
    );
    expect(rows).toEqual([
      { referrer_bonus: 300, referee_voucher_kind: "percentage", config: product },
    ]);
  });

  it("sets the programme settings from stdin, refusing a bad one with the field named", async () => {
    const saved = await runCommand(
      ["program-settings", "set", "--store", "cli-shop"],
      env,
      JSON.stringify({ pendingDays: 14 }),
    );
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain("an order's points stay pending 14 days from the order's date");
    const refused = await runCommand(
      ["program-settings", "set", "--store", "cli-shop"],
      env,
      JSON.stringify({ pendingDays: 1000 }),
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("/pendingDays");
    const { rows } = await pool.query(
      `SELECT p.pending_days FROM program_settings p JOIN stores s ON s.id = p.store_id
       WHERE s.reference = 'cli-shop'`,
    );
    expect(rows).toEqual([{ pending_days: 14 }]);
  });

  it("refuses to start with a master key that cannot read the stored keys", async () => {
    const result = await runCommand(["key", "list"], {
      ...env,
      LOYALTY_MASTER_KEY: "ab".repeat(32),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("LOYALTY_MASTER_KEY does not decrypt the API keys");
  });

  it("migrates an empty database; before that, commands say to run migrate first", async () => {
    const empty = await createTestDatabase({ empty: true });
    try {
      const fresh = { ...env, DATABASE_URL: empty.url, MIGRATE_ON_START: "false" };
      const early = await runCommand(["store", "list"], fresh);
      expect(early.code).toBe(1);
      expect(early.stderr).toMatch(
        /^error: The database is not migrated: .*Run `loyalty migrate` first\.\n$/,
      );

      const migrated = await runCommand(["migrate"], fresh);
      expect(migrated.stderr).toBe("");
      expect(migrated.code).toBe(0);
      expect(migrated.stdout).toMatch(/^Applied \d+ migration\(s\):\n {2}\d+_initial-schema\n/);

      const listed = await runCommand(["store", "list", "--json"], fresh);
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual([]);
      expect(JSON.parse((await runCommand(["migrate", "--json"], fresh)).stdout)).toEqual({
        applied: [],
      });
    } finally {
      await empty.drop();
    }
  });

  it("runs as the `loyalty` process: its output, its input and its exit codes", async () => {
    const [listed, refused] = await Promise.all([
      runCli(["store", "list", "--json"], env),
      runCli(["platform", "set", "--store", "cli-shop", "--json"], env, "not json"),
    ]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ reference: "cli-shop" }),
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe("");
    expect(JSON.parse(refused.stderr)).toEqual({
      error: { message: "The input is not a JSON document.", reason: "validation-failed" },
    });
  });

  it("explains an invalid configuration", async () => {
    const result = await runCommand(["key", "list"], { ...env, DATABASE_URL: "mysql://nope" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "DATABASE_URL: must be a postgres:// or postgresql:// connection URL",
    );
  });
});
