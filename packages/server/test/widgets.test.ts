import {
  cartWidgetResponseSchema,
  launcherWidgetResponseSchema,
  legacyErrorSchema,
  problemSchema,
  productPointsWidgetResponseSchema,
  programPresentationWidgetResponseSchema,
  type ButtonAction,
  type CartConfig,
  type LauncherConfig,
  type PresentationHeader,
  type ProductPointsConfig,
  type ProgramPresentationConfig,
  type WidgetKind,
} from "@loyalty/shared-types";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AppError } from "../src/errors.js";
import { revalidate } from "./support/revalidate.js";
import { eventually, startTestApp, type TestApp } from "./support/app.js";

const PROBLEMS = "https://loyalty.dev/problems";
const KINDS = ["cart", "product-points", "program-presentation", "launcher"] as const;

/** Each widget's response schema, from the shared contract. */
const RESPONSE_SCHEMAS = {
  cart: cartWidgetResponseSchema,
  "product-points": productPointsWidgetResponseSchema,
  "program-presentation": programPresentationWidgetResponseSchema,
  launcher: launcherWidgetResponseSchema,
} as const;

let app: TestApp;
/** The sections of a programme page's configuration. */
const sections = (config: unknown) =>
  (config as { sections: Record<string, Record<string, unknown>> }).sections;

/** A connection of its own, as an operator's psql (writes around the service) would be. */
let admin: pg.Client;

beforeAll(async () => {
  app = await startTestApp({ storeChanges: { minRetryDelayMs: 20, maxRetryDelayMs: 100 } });
  // Every revision of the registry is stable on this day: the answers do not depend on the date.
  app.setNow(new Date("2026-11-22T12:00:00Z"));
  admin = new pg.Client({ connectionString: app.database.url });
  await admin.connect();
});

afterAll(async () => {
  await admin.end();
  await app.close();
});

let storeCount = 0;

/** A store of its own for each test: no test sees another's configuration or cache entry. */
async function newStore(language = "en", currency = "EUR") {
  storeCount += 1;
  const domain = `https://widgets-${storeCount}.example`;
  const store = await app.context.services.stores.create({ domain, language, currency });
  return { id: store.id, domain };
}

const save = (storeId: number, kind: WidgetKind, config: unknown) =>
  app.context.services.widgets.save(storeId, kind, config);

function widget(
  kind: WidgetKind,
  query: Record<string, string | string[]> | string,
  headers: Record<string, string> = {},
) {
  let search: string;
  if (typeof query === "string") search = query;
  else {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) {
      for (const item of [value].flat()) params.append(name, item);
    }
    search = params.toString();
  }
  return fetch(`${app.baseUrl}/store/widget/${kind}?${search}`, { headers });
}

/** A 200 of the widget, validated by its shared response schema. */
async function served<K extends WidgetKind>(kind: K, domain: string) {
  const response = await widget(kind, { domain });
  expect(response.status).toBe(200);
  return RESPONSE_SCHEMAS[kind].parse(await response.json()) as {
    store: { domain: string; language: string; currency: string; brandingColor: string };
    config: K extends "cart"
      ? CartConfig
      : K extends "product-points"
        ? ProductPointsConfig
        : K extends "launcher"
          ? LauncherConfig
          : ProgramPresentationConfig;
  };
}

/** Polls the widget until `check` passes: invalidation arrives by LISTEN/NOTIFY, a few ms late. */
function servedEventually<K extends WidgetKind>(
  kind: K,
  domain: string,
  check: (body: Awaited<ReturnType<typeof served<K>>>) => boolean,
) {
  return eventually(async () => {
    const body = await served(kind, domain);
    return check(body) ? body : undefined;
  }, 5_000);
}

/** The AppError `promise` rejects with. */
async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error("expected the configuration to be refused");
}

async function storedConfig(storeId: number, kind: WidgetKind): Promise<unknown> {
  const { rows } = await admin.query<{ config: unknown }>(
    `SELECT config FROM widget_configurations WHERE store_id = $1 AND kind = $2`,
    [storeId, kind],
  );
  return rows[0]?.config;
}

const CART: CartConfig = {
  enabled: false,
  title: "Your rewards",
  earnTemplate: "+{points} pts with this cart",
  showBalance: false,
  balanceTemplate: "Balance: {points}",
  showRewards: false,
  claimButtonText: "Redeem",
  confirmClaims: false,
  signedOutText: "Log in to redeem",
  loginUrl: "https://shop.example/login",
  accentColor: "#ff8800",
};

const PRODUCT_POINTS: ProductPointsConfig = {
  enabled: true,
  template: "{points} pts",
  hideWhenZero: false,
  showIcon: false,
  textColor: "#111",
  accentColor: "rgb(10 20 30)",
};

const HEADER: PresentationHeader = {
  backgroundImageUrl: "https://cdn.shop.example/desktop.jpg",
  mobileBackgroundImageUrl: "https://cdn.shop.example/mobile.jpg",
  imageFit: "ratio",
  mobileLayout: "overlay",
  contentPosition: "right",
  contentCard: true,
  backgroundColor: "#102030",
  textColor: "#fafafa",
  primaryButtonText: "Read the FAQ",
  primaryButtonAction: "scroll-faq",
  primaryButtonUrl: "",
  secondaryButtonText: "Our shop",
  secondaryButtonAction: "url",
  secondaryButtonUrl: "https://shop.example/club",
  text: "Join the club",
  isRawHtml: false,
};

const PRESENTATION: ProgramPresentationConfig = {
  header: HEADER,
  sections: {
    howToEarn: {
      enabled: true,
      title: "Earn",
      items: [{ icon: "referral", title: "Invite a friend", text: "200 points per friend" }],
    },
    rewards: { enabled: true, title: "Spend", emptyText: "Nothing yet", confirmClaims: true },
    history: {
      enabled: true,
      title: "Mine",
      signedOutText: "Log in",
      loginUrl: "https://shop.example/login",
    },
    faq: {
      enabled: true,
      title: "FAQ",
      items: [{ question: "Do points expire?", answer: "After a year." }],
    },
  },
};

const LAUNCHER: LauncherConfig = {
  enabled: true,
  label: "Points",
  position: "bottom-left",
  title: "The club",
  visitorText: "Join the club",
  signUpUrl: "https://shop.example/register",
  loginUrl: "https://shop.example/login",
  waysToEarn: [{ icon: "birthday", title: "Birthday", text: "100 points on your birthday" }],
  showRewards: false,
  confirmClaims: false,
  showReferral: false,
  accentColor: "#ff8800",
};

const SAVED: Record<WidgetKind, unknown> = {
  cart: CART,
  "product-points": PRODUCT_POINTS,
  "program-presentation": PRESENTATION,
  launcher: LAUNCHER,
};

/** What a shopper reads, in each widget's default configuration. */
function visibleTexts(kind: WidgetKind, config: unknown): string[] {
  if (kind === "cart") {
    const cart = config as CartConfig;
    return [
      cart.title,
      cart.earnTemplate,
      cart.balanceTemplate,
      cart.claimButtonText,
      cart.signedOutText ?? "",
    ];
  }
  if (kind === "product-points") return [(config as ProductPointsConfig).template];
  if (kind === "launcher") {
    const launcher = config as LauncherConfig;
    return [
      launcher.label,
      launcher.title,
      launcher.visitorText,
      ...launcher.waysToEarn.map((way) => way.text),
    ];
  }
  const { header, sections } = config as ProgramPresentationConfig;
  return [
    header.primaryButtonText,
    header.secondaryButtonText ?? "",
    header.text ?? "",
    sections.howToEarn.title,
    sections.rewards.title,
    sections.history.title,
  ];
}

const FRENCH = /[àâçéèêëîïôûù]|\b(de|des|du|vos|vous|votre|avec|ce|cette|chaque|mes|les|pour)\b/i;
const ENGLISH = /\b(the|your|you|my|with|this|to|earn|use|loyalty|see|how|rewards|every)\b/i;

describe.each(KINDS)("GET /store/widget/%s", (kind) => {
  describe("default configuration", () => {
    it("serves a store with no saved configuration the default one, in English", async () => {
      const { domain } = await newStore("en", "USD");
      const body = await served(kind, domain);
      expect(body.store).toEqual({ domain, language: "en", currency: "USD", brandingColor: "" });
      for (const text of visibleTexts(kind, body.config)) {
        expect(text).toMatch(ENGLISH);
        expect(text).not.toMatch(FRENCH);
      }
    });

    it("serves a French store the default configuration in French", async () => {
      const en = await served(kind, (await newStore("en")).domain);
      const { domain } = await newStore("fr", "CHF");
      const fr = await served(kind, domain);
      expect(fr.store).toEqual({ domain, language: "fr", currency: "CHF", brandingColor: "" });
      const english = visibleTexts(kind, en.config);
      const french = visibleTexts(kind, fr.config);
      french.forEach((text, i) => {
        expect(text).toMatch(FRENCH);
        expect(text).not.toBe(english[i]);
      });
      // The settings are the same whatever the language: only the words change.
      expect(Object.keys(fr.config).sort()).toEqual(Object.keys(en.config).sort());
    });

    it("reads a regional language as its language, and an unknown one as English", async () => {
      const fr = await served(kind, (await newStore("fr")).domain);
      const en = await served(kind, (await newStore("en")).domain);
      const canadian = await served(kind, (await newStore("fr-CA")).domain);
      expect(canadian.store.language).toBe("fr-CA");
      expect(canadian.config).toEqual(fr.config);
      const german = await served(kind, (await newStore("de")).domain);
      expect(german.store.language).toBe("de");
      expect(german.config).toEqual(en.config);
    });

    it.skipIf(kind === "program-presentation" || kind === "launcher")(
      "keeps the {points} placeholder in every default template",
      async () => {
        for (const language of ["en", "fr"]) {
          const { config } = await served(kind, (await newStore(language)).domain);
          const templates =
            kind === "cart"
              ? [(config as CartConfig).earnTemplate, (config as CartConfig).balanceTemplate]
              : [(config as ProductPointsConfig).template];
          for (const template of templates) expect(template).toContain("{points}");
        }
      },
    );
  });

  describe("saved configuration", () => {
    it("serves the configuration as it was saved", async () => {
      const { id, domain } = await newStore();
      const before = await served(kind, domain);
      expect(before.config).not.toEqual(SAVED[kind]);
      expect(await save(id, kind, SAVED[kind])).toEqual(SAVED[kind]);
      const after = await servedEventually(kind, domain, (body) => {
        return JSON.stringify(body.config) !== JSON.stringify(before.config);
      });
      expect(after.config).toEqual(SAVED[kind]);
      expect(await storedConfig(id, kind)).toEqual(SAVED[kind]);
    });

    it("does not serve one widget's configuration as another's, nor another store's", async () => {
      const one = await newStore();
      const other = await newStore();
      await save(one.id, kind, SAVED[kind]);
      for (const otherKind of KINDS.filter((k) => k !== kind)) {
        expect((await served(otherKind, one.domain)).config).not.toEqual(SAVED[kind]);
      }
      expect((await served(kind, other.domain)).config).not.toEqual(SAVED[kind]);
      expect((await served(kind, one.domain)).config).toEqual(SAVED[kind]);
    });
  });

  describe("refused configuration", () => {
    const invalid: Record<WidgetKind, { config: unknown; pointers: string[] }> = {
      cart: {
        config: { ...CART, earnTemplate: "", accentColor: "blue" },
        pointers: ["/accentColor", "/earnTemplate"],
      },
      "product-points": {
        config: { ...PRODUCT_POINTS, hideWhenZero: "yes", textColor: "#12345" },
        pointers: ["/hideWhenZero", "/textColor"],
      },
      "program-presentation": {
        config: {
          ...PRESENTATION,
          header: { ...HEADER, imageFit: "contain" },
          sections: {
            ...PRESENTATION.sections,
            howToEarn: {
              ...PRESENTATION.sections.howToEarn,
              items: [{ icon: "rocket", title: "Fly", text: "" }],
            },
          },
        },
        pointers: ["/header/imageFit", "/sections/howToEarn/items/0/icon"],
      },
      launcher: {
        config: { ...LAUNCHER, label: "", position: "top-left" },
        pointers: ["/label", "/position"],
      },
    };

    it("refuses an invalid configuration with validation-failed naming the fields", async () => {
      const { id } = await newStore();
      const error = await refusal(save(id, kind, invalid[kind].config));
      expect(error.reason).toBe("validation-failed");
      expect(error.status).toBe(400);
      expect(error.issues?.map((issue) => issue.pointer).sort()).toEqual(invalid[kind].pointers);
      expect(await storedConfig(id, kind)).toBeUndefined();
    });

    it("writes nothing: the previous configuration is still served", async () => {
      const { id, domain } = await newStore();
      await save(id, kind, SAVED[kind]);
      await servedEventually(kind, domain, (body) => {
        return JSON.stringify(body.config) === JSON.stringify(SAVED[kind]);
      });
      await refusal(save(id, kind, invalid[kind].config));
      expect(await storedConfig(id, kind)).toEqual(SAVED[kind]);
      // Long enough for a notification to arrive, had the refused save written anything.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await served(kind, domain)).config).toEqual(SAVED[kind]);
    });

    it("refuses what is no configuration at all", async () => {
      const { id } = await newStore();
      for (const config of [null, "text", [], {}]) {
        const error = await refusal(save(id, kind, config));
        expect(error.reason).toBe("validation-failed");
        expect(error.issues?.length).toBeGreaterThan(0);
      }
      expect(await storedConfig(id, kind)).toBeUndefined();
    });
  });

  it("asks before a claim when the configuration was saved before the setting existed", async () => {
    const { id, domain } = await newStore();
    const older = structuredClone(SAVED[kind]) as Record<string, unknown>;
    const holder = kind === "program-presentation" ? sections(older)["rewards"]! : older;
    delete holder["confirmClaims"];
    await admin.query(
      `INSERT INTO widget_configurations (store_id, kind, config) VALUES ($1, $2, $3)`,
      [id, kind, JSON.stringify(older)],
    );
    // The merchant's configuration, not the default, with the claims asking first.
    if (kind !== "product-points") holder["confirmClaims"] = true;
    expect((await served(kind, domain)).config).toEqual(older);
  });

  it("serves the default for a configuration written invalid around the service, and logs it", async () => {
    const { id, domain } = await newStore();
    const defaults = (await served(kind, (await newStore()).domain)).config;
    await save(id, kind, SAVED[kind]);
    await servedEventually(kind, domain, (body) => {
      return JSON.stringify(body.config) === JSON.stringify(SAVED[kind]);
    });
    const logged = app.logs.length;

    await admin.query(
      `UPDATE widget_configurations SET config = $3 WHERE store_id = $1 AND kind = $2`,
      [id, kind, JSON.stringify({ enabled: "sometimes", colour: 12 })],
    );
    const body = await servedEventually(kind, domain, (answer) => {
      return JSON.stringify(answer.config) !== JSON.stringify(SAVED[kind]);
    });
    expect(body.config).toEqual(defaults);

    const errors = app.logs
      .slice(logged)
      .map((line) => JSON.parse(line) as { level: number; widget?: string; storeId?: number })
      .filter((line) => line.level >= 50);
    // Once per load of the configuration (a late notification may cause a second one).
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) expect(error).toMatchObject({ widget: kind, storeId: id });
  });

  describe("errors", () => {
    it("answers an unknown domain with not-found, in the legacy format by default", async () => {
      const response = await widget(kind, { domain: "https://unknown.example" });
      expect(response.status).toBe(404);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      const body = legacyErrorSchema.parse(await response.json());
      expect(body).toEqual({ statusCode: 404, error: "Not Found", message: expect.any(String) });
    });

    it("answers an unknown domain with a not-found problem from revision 2026-08-26", async () => {
      const response = await widget(
        kind,
        { domain: "https://unknown.example" },
        { revision: "2026-08-26" },
      );
      expect(response.status).toBe(404);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      const problem = problemSchema.parse(await response.json());
      expect(problem).toMatchObject({ type: `${PROBLEMS}/not-found`, status: 404 });
    });

    it.each([
      ["no domain", ""],
      ["an empty domain", "domain="],
      ["a domain of 5 characters", "domain=a.com"],
      ["a domain given twice", "domain=https://a.example&domain=https://b.example"],
      ["a domain with a NUL", "domain=https://sh%00op.example"],
      ["a domain in brackets", "domain[x]=https://shop.example"],
    ])("answers %s with not-found, never validation-failed", async (_name, query) => {
      const legacy = await widget(kind, query);
      expect(legacy.status).toBe(404);
      expect(legacy.headers.get("cache-control")).toBe("no-store");
      expect(legacyErrorSchema.parse(await legacy.json()).statusCode).toBe(404);

      const problem = await widget(kind, query, { revision: "2026-08-26" });
      expect(problem.status).toBe(404);
      expect(problemSchema.parse(await problem.json()).type).toBe(`${PROBLEMS}/not-found`);
    });

    it("normalises the domain's case and trailing slash", async () => {
      const { domain } = await newStore();
      const host = domain.slice("https://".length);
      for (const variant of [domain.toUpperCase(), `${domain}/`, `HTTPS://${host}//`]) {
        const body = await served(kind, variant);
        expect(body.store.domain).toBe(domain);
      }
    });

    it.each([
      ["2026-13-45", "invalid-revision-header"],
      ["2025-01-01", "unknown-api-revision"],
    ])("refuses the revision %s with %s", async (revision, reason) => {
      const { domain } = await newStore();
      const response = await widget(kind, { domain }, { revision });
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      expect(problemSchema.parse(await response.json())).toMatchObject({
        type: `${PROBLEMS}/${reason}`,
        status: 400,
      });
    });

    it("marks a refused revision no-store, as every other refusal", async () => {
      const { domain } = await newStore();
      for (const revision of ["2026-13-45", "2025-01-01"]) {
        const response = await widget(kind, { domain }, { revision });
        expect(response.status).toBe(400);
        expect(response.headers.get("cache-control")).toBe("no-store");
      }
    });

    it("serves every supported revision, and echoes it", async () => {
      const { domain } = await newStore();
      for (const revision of ["2026-01-01", "2026-06-18", "2026-08-26"]) {
        const response = await widget(kind, { domain }, { revision });
        expect(response.status).toBe(200);
        expect(response.headers.get("revision")).toBe(revision);
      }
    });

    it("answers 500 when the database fails, marked no-store, and recovers", async () => {
      const { domain } = await newStore();
      const queries = vi
        .spyOn(app.context.pool, "query")
        .mockImplementation(() => Promise.reject(new Error("connection refused")));
      try {
        const failed = await widget(kind, { domain }, { revision: "2026-08-26" });
        expect(failed.status).toBe(500);
        expect(failed.headers.get("cache-control")).toBe("no-store");
        expect(problemSchema.parse(await failed.json()).type).toBe(
          `${PROBLEMS}/internal-server-error`,
        );
      } finally {
        queries.mockRestore();
      }
      expect((await served(kind, domain)).store.domain).toBe(domain);
    });
  });

  describe("HTTP caching", () => {
    const revalidateWidget = (domain: string, ifNoneMatch: string) =>
      revalidate(
        `${app.baseUrl}/store/widget/${kind}?domain=${encodeURIComponent(domain)}`,
        ifNoneMatch,
      );

    it("is publicly cacheable for a minute, with an ETag and Vary: revision", async () => {
      const { domain } = await newStore();
      const response = await widget(kind, { domain });
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("public, max-age=60");
      expect(response.headers.get("etag")).toMatch(/^(W\/)?".+"$/);
      expect(response.headers.get("vary")).toMatch(/\brevision\b/i);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    });

    it("answers 304 without a body to If-None-Match with the ETag", async () => {
      const { domain } = await newStore();
      const etag = (await widget(kind, { domain })).headers.get("etag") as string;
      const unchanged = await revalidateWidget(domain, etag);
      expect(unchanged.status).toBe(304);
      expect(unchanged.body).toBe("");
      expect(unchanged.headers["etag"]).toBe(etag);
      expect(unchanged.headers["cache-control"]).toBe("public, max-age=60");

      const other = await revalidateWidget(domain, 'W/"something-else"');
      expect(other.status).toBe(200);
      expect(RESPONSE_SCHEMAS[kind].parse(JSON.parse(other.body)).store.domain).toBe(domain);
    });

    it("gives equal answers an equal ETag, and a new one once a configuration is saved", async () => {
      const { id, domain } = await newStore();
      const first = await widget(kind, { domain });
      const etag = first.headers.get("etag") as string;
      const before = await first.text();
      expect((await widget(kind, { domain: `${domain}/` })).headers.get("etag")).toBe(etag);

      await save(id, kind, SAVED[kind]);
      const changed = await eventually(async () => {
        const response = await widget(kind, { domain });
        const body = await response.text();
        return body !== before ? { etag: response.headers.get("etag"), body } : undefined;
      }, 5_000);
      expect(JSON.parse(changed.body).config).toEqual(SAVED[kind]);
      expect(changed.etag).toMatch(/^(W\/)?".+"$/);
      expect(changed.etag).not.toBe(etag);
      // The browser's copy, tagged with the old ETag, is no longer fresh.
      const revalidated = await revalidateWidget(domain, etag);
      expect(revalidated.status).toBe(200);
      expect(JSON.parse(revalidated.body).config).toEqual(SAVED[kind]);
    });

    it("follows the store's branding colour", async () => {
      const { id, domain } = await newStore();
      const before = await widget(kind, { domain });
      const etag = before.headers.get("etag");
      await admin.query(`UPDATE stores SET branding_color = '#aa3300' WHERE id = $1`, [id]);
      const after = await servedEventually(
        kind,
        domain,
        (body) => body.store.brandingColor === "#aa3300",
      );
      expect(after.store.brandingColor).toBe("#aa3300");
      expect((await widget(kind, { domain })).headers.get("etag")).not.toBe(etag);
    });

    it("serves a cache hit without any database query", async () => {
      const { domain } = await newStore();
      const unknown = "https://never-a-store.example";
      // Another test's change may still be on its way and empty the cache once more: a round
      // counts once both answers were in memory before it began.
      await eventually(async () => {
        await served(kind, domain);
        await widget(kind, { domain: unknown });
        const queries = vi.spyOn(app.context.pool, "query");
        try {
          for (let i = 0; i < 5; i++) expect((await widget(kind, { domain })).status).toBe(200);
          expect((await widget(kind, { domain: unknown })).status).toBe(404);
          return queries.mock.calls.length === 0 ? true : undefined;
        } finally {
          queries.mockRestore();
        }
      }, 3_000);
    });
  });
});

describe("GET /store/widget/program-presentation: the header", () => {
  const KIND = "program-presentation";

  /** The header a storefront is served once `header` is saved for a new store. */
  async function servedHeader(
    header: Partial<PresentationHeader>,
    options: {
      brandingColor?: string;
      sections?: Partial<ProgramPresentationConfig["sections"]>;
    } = {},
  ): Promise<PresentationHeader> {
    const { id, domain } = await newStore();
    if (options.brandingColor !== undefined) {
      await admin.query(`UPDATE stores SET branding_color = $2 WHERE id = $1`, [
        id,
        options.brandingColor,
      ]);
    }
    const config = {
      header: { ...HEADER, ...header },
      sections: { ...PRESENTATION.sections, ...options.sections },
    };
    await save(id, KIND, config);
    const body = await servedEventually(KIND, domain, (answer) => {
      return (
        answer.config.header.primaryButtonText === config.header.primaryButtonText &&
        answer.store.brandingColor === (options.brandingColor ?? "")
      );
    });
    return body.config.header;
  }

  it.each([
    ["imageFit", ["cover", "ratio"]],
    ["mobileLayout", ["overlay", "stacked"]],
    ["contentPosition", ["center", "left", "right"]],
    ["contentCard", [true, false]],
  ] as const)("serves every value of %s", async (field, values) => {
    for (const value of values) {
      const header = await servedHeader({ [field]: value, primaryButtonText: `${field} ${value}` });
      expect(header[field]).toBe(value);
    }
  });

  const ACTIONS: ButtonAction[] = [
    "scroll-points",
    "scroll-redeem",
    "scroll-history",
    "scroll-faq",
    "url",
  ];

  it.each(ACTIONS)("serves the button action %s on both buttons", async (action) => {
    const url = action === "url" ? `https://shop.example/${action}-target` : "";
    const header = await servedHeader({
      primaryButtonText: `Primary ${action}`,
      primaryButtonAction: action,
      primaryButtonUrl: url,
      secondaryButtonText: `Secondary ${action}`,
      secondaryButtonAction: action,
      secondaryButtonUrl: url,
    });
    expect(header).toMatchObject({
      primaryButtonText: `Primary ${action}`,
      primaryButtonAction: action,
      primaryButtonUrl: url,
      secondaryButtonText: `Secondary ${action}`,
      secondaryButtonAction: action,
      secondaryButtonUrl: url,
    });
  });

  it("serves an empty mobile image as the desktop image", async () => {
    const header = await servedHeader({
      primaryButtonText: "Mobile reuses desktop",
      backgroundImageUrl: "https://cdn.shop.example/wide.jpg",
      mobileBackgroundImageUrl: "",
    });
    expect(header.mobileBackgroundImageUrl).toBe("https://cdn.shop.example/wide.jpg");
    expect(header.backgroundImageUrl).toBe("https://cdn.shop.example/wide.jpg");
  });

  it("keeps a mobile image of its own", async () => {
    const header = await servedHeader({
      primaryButtonText: "Mobile of its own",
      backgroundImageUrl: "https://cdn.shop.example/wide.jpg",
      mobileBackgroundImageUrl: "https://cdn.shop.example/tall.jpg",
    });
    expect(header.mobileBackgroundImageUrl).toBe("https://cdn.shop.example/tall.jpg");
  });

  it("serves an unset background colour as the store's branding colour", async () => {
    const header = await servedHeader(
      { primaryButtonText: "Branding background", backgroundColor: "" },
      { brandingColor: "#0a7b3e" },
    );
    expect(header.backgroundColor).toBe("#0a7b3e");
    const own = await servedHeader(
      { primaryButtonText: "Own background", backgroundColor: "#222222" },
      { brandingColor: "#0a7b3e" },
    );
    expect(own.backgroundColor).toBe("#222222");
  });

  it("paints the default banner with the branding colour, and follows its changes", async () => {
    const { id, domain } = await newStore();
    const before = await served(KIND, domain);
    expect(before.config.header.backgroundColor).toBe("");
    for (const colour of ["#c0ffee", "rgb(1 2 3)"]) {
      await admin.query(`UPDATE stores SET branding_color = $2 WHERE id = $1`, [id, colour]);
      const after = await servedEventually(KIND, domain, (body) => {
        return body.config.header.backgroundColor === colour;
      });
      expect(after.store.brandingColor).toBe(colour);
    }
  });

  const RAW = [
    '<h2 onclick="steal()">Double points</h2>',
    "<p>This week only, on <strong>every</strong> order.",
    '<a href="https://shop.example/rewards" target="_blank" rel="opener">See the rewards</a>',
    '<a href="https://shop.example/faq">FAQ</a></p>',
    "<script>alert('xss')</script>",
    '<img src="https://evil.example/x.png" onerror="alert(1)">',
    '<iframe src="https://evil.example"></iframe>',
    "<style>body { display: none }</style>",
    '<a href="javascript:alert(2)">Click me</a>',
    '<a href=" JaVaScRiPt:alert(3)">Or me</a>',
  ].join("");

  it("serves raw HTML sanitised: nothing that runs or loads, formatting and links kept", async () => {
    const header = await servedHeader({
      primaryButtonText: "Raw HTML",
      text: RAW,
      isRawHtml: true,
    });
    const text = header.text ?? "";
    expect(header.isRawHtml).toBe(true);
    for (const removed of [
      /<script/i,
      /alert/i,
      /onerror/i,
      /onclick/i,
      /javascript:/i,
      /<img/i,
      /<iframe/i,
      /<style/i,
      /display: none/,
      /evil\.example/,
    ]) {
      expect(text).not.toMatch(removed);
    }
    expect(text).toContain("<h2>Double points</h2>");
    expect(text).toContain("<p>This week only, on <strong>every</strong> order.");
    expect(text).toMatch(/<a href="https:\/\/shop\.example\/faq">FAQ<\/a>/);
    const blank = /<a [^>]*>See the rewards<\/a>/.exec(text)?.[0] ?? "";
    expect(blank).toContain('href="https://shop.example/rewards"');
    expect(blank).toContain('target="_blank"');
    expect(blank).toContain('rel="noopener noreferrer"');
    expect(blank).not.toContain('"opener"');
  });

  it("serves text that is not raw HTML exactly as written, markup included", async () => {
    const text = "Get <b>double</b> points & more <script>not run</script>";
    const header = await servedHeader({ primaryButtonText: "Plain text", text, isRawHtml: false });
    expect(header.text).toBe(text);
    expect(header.isRawHtml).toBe(false);
  });

  it("refuses a button scrolling to a disabled section, naming the button", async () => {
    const { id, domain } = await newStore();
    await save(id, KIND, PRESENTATION);
    await servedEventually(KIND, domain, (body) => {
      return JSON.stringify(body.config) === JSON.stringify(PRESENTATION);
    });
    const faqOff = {
      ...PRESENTATION.sections,
      faq: { ...PRESENTATION.sections.faq, enabled: false },
    };
    const primary = await refusal(
      save(id, KIND, {
        header: { ...HEADER, primaryButtonAction: "scroll-faq" },
        sections: faqOff,
      }),
    );
    expect(primary.reason).toBe("validation-failed");
    expect(primary.issues?.map((issue) => issue.pointer)).toEqual(["/header/primaryButtonAction"]);

    const secondary = await refusal(
      save(id, KIND, {
        header: {
          ...HEADER,
          primaryButtonAction: "scroll-points",
          secondaryButtonAction: "scroll-faq",
        },
        sections: faqOff,
      }),
    );
    expect(secondary.issues?.map((issue) => issue.pointer)).toEqual([
      "/header/secondaryButtonAction",
    ]);
    expect(await storedConfig(id, KIND)).toEqual(PRESENTATION);
    expect((await served(KIND, domain)).config).toEqual(PRESENTATION);
  });

  it("serves the default when a section a button scrolls to was disabled around the service", async () => {
    const { id, domain } = await newStore();
    const defaults = (await served(KIND, (await newStore()).domain)).config;
    await save(id, KIND, PRESENTATION);
    await servedEventually(KIND, domain, (body) => {
      return JSON.stringify(body.config) === JSON.stringify(PRESENTATION);
    });
    const logged = app.logs.length;
    await admin.query(
      `UPDATE widget_configurations SET config = jsonb_set(config, '{sections,faq,enabled}', 'false')
       WHERE store_id = $1 AND kind = $2`,
      [id, KIND],
    );
    const body = await servedEventually(KIND, domain, (answer) => {
      return JSON.stringify(answer.config) !== JSON.stringify(PRESENTATION);
    });
    expect(body.config).toEqual(defaults);
    const errors = app.logs
      .slice(logged)
      .map((line) => JSON.parse(line) as { level: number; widget?: string; msg?: string })
      .filter((line) => line.level >= 50);
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) expect(error).toMatchObject({ widget: KIND, storeId: id });
  });
});

describe("translations: the merchant's texts in other languages", () => {
  const TRANSLATED_CART = {
    ...CART,
    translations: {
      fr: { title: "Vos récompenses", earnTemplate: "+{points} pts avec ce panier" },
      "pt-BR": { title: "Suas recompensas" },
    },
  };

  it("serves them as saved, and a configuration without them exactly as before", async () => {
    const { id, domain } = await newStore();
    await save(id, "cart", TRANSLATED_CART);
    const body = await servedEventually("cart", domain, (answer) => !!answer.config.translations);
    expect(body.config).toEqual(TRANSLATED_CART);
    expect(await storedConfig(id, "cart")).toEqual(TRANSLATED_CART);

    const plain = await newStore();
    await save(plain.id, "cart", CART);
    const spec = await servedEventually("cart", plain.domain, (answer) => !answer.config.enabled);
    expect(Object.keys(spec.config)).not.toContain("translations");
    // A store's default configuration has none either.
    for (const kind of KINDS) {
      const defaults = await served(kind, (await newStore("fr")).domain);
      expect(Object.keys(defaults.config), kind).not.toContain("translations");
    }
  });

  // 31 languages of the private-use range, qaa to qbe.
  const tooMany = Object.fromEntries(
    Array.from({ length: 31 }, (_, index) => [
      `q${String.fromCharCode(97 + Math.floor(index / 26))}${String.fromCharCode(97 + (index % 26))}`,
      {},
    ]),
  );
  it.each([
    [
      "a tag not in its canonical form",
      "cart",
      { "fr-ca": { title: "x" } },
      ["/translations/fr-ca"],
    ],
    [
      "a tag with extensions",
      "cart",
      { "en-u-ca-buddhist": { title: "x" } },
      ["/translations/en-u-ca-buddhist"],
    ],
    [
      "what is no language tag",
      "cart",
      { "not a tag": { title: "x" } },
      ["/translations/not a tag"],
    ],
    [
      "a setting that is not a text",
      "cart",
      { fr: { accentColor: "#000000" } },
      ["/translations/fr/accentColor"],
    ],
    [
      "an empty template",
      "product-points",
      { fr: { template: "" } },
      ["/translations/fr/template"],
    ],
    [
      "a list translated longer than the list",
      "launcher",
      { fr: { waysToEarn: [{ title: "Anniversaire" }, { title: "Parrainage" }] } },
      ["/translations/fr/waysToEarn"],
    ],
    [
      "a programme page's FAQ translated longer than the FAQ",
      "program-presentation",
      { de: { sections: { faq: { items: [{}, { question: "Zwei?" }] } } } },
      ["/translations/de/sections/faq/items"],
    ],
    ["more than 30 languages", "cart", tooMany, ["/translations"]],
  ] as const)(
    "refuses %s, naming it, and saves nothing",
    async (_name, kind, translations, pointers) => {
      const { id } = await newStore();
      const error = await refusal(save(id, kind, { ...(SAVED[kind] as object), translations }));
      expect(error.reason).toBe("validation-failed");
      expect(error.issues?.map((issue) => issue.pointer)).toEqual(pointers);
      expect(await storedConfig(id, kind)).toBeUndefined();
    },
  );

  it("says how a tag is written", async () => {
    const { id } = await newStore();
    const error = await refusal(
      save(id, "cart", { ...CART, translations: { "pt-br": { title: "x" } } }),
    );
    expect(error.issues?.[0]?.message).toContain("pt-BR");
  });

  it("sanitises a translated raw HTML banner like the default one", async () => {
    const { id, domain } = await newStore();
    const config = {
      ...PRESENTATION,
      header: { ...HEADER, text: "<p>Join</p>", isRawHtml: true },
      translations: {
        fr: {
          header: {
            text: '<p onclick="steal()">Rejoignez <strong>le club</strong></p><script>alert(1)</script><img src="https://evil.example/x.png" onerror="alert(2)">',
          },
          sections: { faq: { title: "Questions" } },
        },
      },
    };
    await save(id, "program-presentation", config);
    const body = await servedEventually("program-presentation", domain, (answer) => {
      return !!answer.config.translations;
    });
    const french = body.config.translations?.["fr"];
    expect(french?.header?.text).toBe("<p>Rejoignez <strong>le club</strong></p>");
    expect(french?.sections).toEqual({ faq: { title: "Questions" } });
  });
});

describe("GET /store/widget/launcher: the referral offer", () => {
  const program = {
    referrerBonus: 250,
    refereeVoucher: { kind: "fixed_amount", value: 10, currency: "EUR", minimumOrderAmount: 40 },
    landingUrl: "https://shop.example/welcome",
  } as const;
  const referral = async (domain: string) => {
    const response = await widget("launcher", { domain });
    expect(response.status).toBe(200);
    return launcherWidgetResponseSchema.parse(await response.json()).referral;
  };

  it("offers invitations only while the store's programme takes them, on every change", async () => {
    const { id, domain } = await newStore();
    // No programme yet: the launcher offers no invitation.
    expect(await referral(domain)).toBeNull();

    await app.context.services.referrals.saveProgram(id, program);
    const offered = await eventually(async () => (await referral(domain)) ?? undefined, 5_000);
    expect(offered).toEqual({
      referrerBonus: 250,
      refereeVoucher: {
        kind: "fixed_amount",
        value: 10,
        currency: "EUR",
        minimumOrderAmount: 40,
        validityDays: null,
      },
      landingUrl: "https://shop.example/welcome",
    });
    await app.context.services.referrals.saveProgram(id, { ...program, landingUrl: null });
    await eventually(
      async () => ((await referral(domain))?.landingUrl === `${domain}/` ? true : undefined),
      5_000,
    );

    await app.context.services.referrals.saveProgram(id, { ...program, active: false });
    await eventually(async () => ((await referral(domain)) === null ? true : undefined), 5_000);
  });
});
