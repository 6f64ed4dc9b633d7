import { z } from "zod";
import {
  colorSchema,
  currencySchema,
  domainSchema,
  languageSchema,
  optionalUrlSchema,
} from "./common.js";
import { referralOfferSchema } from "./referrals.js";

/** Query of the three widget configuration operations. */
export const widgetConfigQuerySchema = z.object({ domain: domainSchema });

export const buttonActionSchema = z.enum([
  "scroll-points",
  "scroll-redeem",
  "scroll-history",
  "scroll-faq",
  "url",
]);
export type ButtonAction = z.infer<typeof buttonActionSchema>;

/** Text shown in the store's default language. */
const label = z.string().max(200);

/** How many languages a widget configuration may carry texts for, beside the default one. */
export const MAX_TEXT_LANGUAGES = 30;

/**
 * Why `tag` cannot name the language of a set of the merchant's texts, or undefined when it
 * can: any BCP 47 tag (`fr`, `fr-CA`, `pt-BR`, `zh-Hant`), written in its canonical form so
 * that one language has one key.
 */
export function textLanguageProblem(tag: string): string | undefined {
  let canonical: string | undefined;
  try {
    canonical = tag.length <= 35 ? Intl.getCanonicalLocales(tag)[0] : undefined;
  } catch {
    canonical = undefined;
  }
  if (canonical === undefined || canonical === "und") {
    return "must be a BCP 47 language tag such as fr, fr-CA or pt-BR";
  }
  // A language, script and region: extensions (`-u-ca-buddhist`) would make one language two keys.
  const baseName = new Intl.Locale(canonical).baseName;
  if (baseName !== canonical) return `must be written ${baseName}, without extensions`;
  return canonical === tag ? undefined : `must be written ${canonical}`;
}

/**
 * The merchant's texts in other languages than the store's default (beyond the spec, absent
 * unless the merchant adds a language): by language tag, the texts of the configuration that
 * change with the language, each optional. A widget shown in one of these languages takes its
 * texts from there and the missing ones from the configuration itself. Only texts may be
 * translated; anything else is refused rather than ignored.
 */
function translations<T extends z.ZodType>(texts: T) {
  return z
    .record(z.string(), texts)
    .superRefine((byLanguage, ctx) => {
      const languages = Object.keys(byLanguage);
      if (languages.length > MAX_TEXT_LANGUAGES) {
        ctx.addIssue({ code: "custom", message: `at most ${MAX_TEXT_LANGUAGES} languages` });
      }
      for (const language of languages) {
        const problem = textLanguageProblem(language);
        if (problem) ctx.addIssue({ code: "custom", path: [language], message: problem });
      }
    })
    .optional();
}

/**
 * The texts `keys` of a configuration's `shape`, each optional, as a translation holds them:
 * with the configuration's own rules (lengths, a template's `min(1)`), declared there once.
 */
function textsOf<S extends z.ZodRawShape, const K extends keyof S & string>(
  shape: S,
  keys: readonly K[],
): { [P in K]: z.ZodOptional<S[P]> } {
  const texts = Object.fromEntries(keys.map((key) => [key, (shape[key] as z.ZodType).optional()]));
  return texts as unknown as { [P in K]: z.ZodOptional<S[P]> };
}

/** A translation of the items of a list: no longer than the list itself. */
function itemCountIssue(
  ctx: z.RefinementCtx,
  items: readonly unknown[],
  translated: Record<string, { [key: string]: unknown }> | undefined,
  path: (string | number)[],
): void {
  for (const [language, texts] of Object.entries(translated ?? {})) {
    let list: unknown = texts;
    for (const key of path) list = (list as Record<string | number, unknown> | undefined)?.[key];
    if (Array.isArray(list) && list.length > items.length) {
      ctx.addIssue({
        code: "custom",
        path: ["translations", language, ...path],
        message: `translates ${list.length} items of a list of ${items.length}`,
      });
    }
  }
}

/**
 * The programme presentation's header (banner), exactly as the spec's table: the required
 * names, the enumerations, and the optional desktop image, secondary button and text.
 */
export const presentationHeaderSchema = z
  .object({
    /** Desktop banner image. */
    backgroundImageUrl: optionalUrlSchema.optional(),
    /** Mobile banner image; "" reuses the desktop one. */
    mobileBackgroundImageUrl: optionalUrlSchema,
    /** `cover`: cropped to a fixed height; `ratio`: the image's own ratio. */
    imageFit: z.enum(["cover", "ratio"]),
    /** `overlay`: text on the image; `stacked`: text under the image. */
    mobileLayout: z.enum(["overlay", "stacked"]),
    contentPosition: z.enum(["center", "left", "right"]),
    /** True puts the text on an opaque card instead of directly on the image. */
    contentCard: z.boolean(),
    /** Banner background; "" falls back to the store's branding colour. */
    backgroundColor: colorSchema,
    textColor: colorSchema,
    primaryButtonText: label,
    primaryButtonAction: buttonActionSchema,
    /** Opened when primaryButtonAction is `url`. */
    primaryButtonUrl: optionalUrlSchema,
    secondaryButtonText: label.optional(),
    secondaryButtonAction: buttonActionSchema.optional(),
    secondaryButtonUrl: optionalUrlSchema.optional(),
    /** Banner content; raw HTML when isRawHtml is true (sanitised before display). */
    text: z.string().max(20_000).optional(),
    isRawHtml: z.boolean().optional(),
  })
  .superRefine((header, ctx) => {
    if (header.primaryButtonAction === "url" && header.primaryButtonUrl === "") {
      ctx.addIssue({
        code: "custom",
        path: ["primaryButtonUrl"],
        message: "primaryButtonUrl is required when primaryButtonAction is url",
      });
    }
    if (header.secondaryButtonAction === "url" && !header.secondaryButtonUrl) {
      ctx.addIssue({
        code: "custom",
        path: ["secondaryButtonUrl"],
        message: "secondaryButtonUrl is required when secondaryButtonAction is url",
      });
    }
  });
export type PresentationHeader = z.infer<typeof presentationHeaderSchema>;

const sectionBase = {
  enabled: z.boolean(),
  title: label,
};

/** A way to earn points as the widgets list it; `icon` picks one of the widgets' icons. */
export const wayToEarnSchema = z.object({
  icon: z.enum(["order", "referral", "club", "birthday", "social", "custom"]),
  title: label,
  text: z.string().max(2000),
});
export type WayToEarn = z.infer<typeof wayToEarnSchema>;
const wayToEarnTexts = z.strictObject(textsOf(wayToEarnSchema.shape, ["title", "text"]));

/** Ways to earn shown on the programme page. */
export const howToEarnSectionSchema = z.object({
  ...sectionBase,
  items: z.array(wayToEarnSchema).max(20),
});

/**
 * How a widget that lists rewards lets a customer claim one. On unless the merchant turns it
 * off: a claim spends points at once, so the widget asks first, naming the points, the reward
 * and its conditions. A configuration saved before the field existed asks too.
 */
const claimFields = {
  confirmClaims: z.boolean().default(true),
};

/** The reward catalogue; claimable when the customer is identified. */
export const rewardsSectionSchema = z.object({
  ...sectionBase,
  /** Shown when the store has no reward to list. */
  emptyText: label.optional(),
  ...claimFields,
});

/** Balance, club and transactions of the identified customer. */
export const historySectionSchema = z.object({
  ...sectionBase,
  /** Shown to visitors who are not identified (logged out). */
  signedOutText: label.optional(),
  /** Where the call to action of signed-out visitors leads. */
  loginUrl: optionalUrlSchema.optional(),
});

const faqItemSchema = z.object({ question: z.string().max(500), answer: z.string().max(5000) });

export const faqSectionSchema = z.object({
  ...sectionBase,
  items: z.array(faqItemSchema).max(50),
});

/** The section each scrolling button action leads to. */
export const SECTION_OF_ACTION = {
  "scroll-points": "howToEarn",
  "scroll-redeem": "rewards",
  "scroll-history": "history",
  "scroll-faq": "faq",
} as const satisfies Record<Exclude<ButtonAction, "url">, string>;

/**
 * The programme page: the header, then the sections its buttons scroll to: how to earn
 * (`scroll-points`), rewards (`scroll-redeem`), history (`scroll-history`) and FAQ
 * (`scroll-faq`). A button may only scroll to a section that is shown.
 */
export const programPresentationConfigSchema = z
  .object({
    header: presentationHeaderSchema,
    sections: z.object({
      howToEarn: howToEarnSectionSchema,
      rewards: rewardsSectionSchema,
      history: historySectionSchema,
      faq: faqSectionSchema,
    }),
    translations: translations(
      z.strictObject({
        header: z
          .strictObject(
            textsOf(presentationHeaderSchema.shape, [
              "primaryButtonText",
              "secondaryButtonText",
              "text",
            ]),
          )
          .optional(),
        sections: z
          .strictObject({
            howToEarn: z
              .strictObject({
                ...textsOf(howToEarnSectionSchema.shape, ["title"]),
                items: z.array(wayToEarnTexts).optional(),
              })
              .optional(),
            rewards: z
              .strictObject(textsOf(rewardsSectionSchema.shape, ["title", "emptyText"]))
              .optional(),
            history: z
              .strictObject(textsOf(historySectionSchema.shape, ["title", "signedOutText"]))
              .optional(),
            faq: z
              .strictObject({
                ...textsOf(faqSectionSchema.shape, ["title"]),
                items: z
                  .array(z.strictObject(textsOf(faqItemSchema.shape, ["question", "answer"])))
                  .optional(),
              })
              .optional(),
          })
          .optional(),
      }),
    ),
  })
  .superRefine((config, ctx) => {
    for (const section of ["howToEarn", "faq"] as const) {
      itemCountIssue(ctx, config.sections[section].items, config.translations, [
        "sections",
        section,
        "items",
      ]);
    }
    for (const button of ["primaryButtonAction", "secondaryButtonAction"] as const) {
      const action = config.header[button];
      if (action === undefined || action === "url") continue;
      const section = SECTION_OF_ACTION[action];
      if (!config.sections[section].enabled) {
        ctx.addIssue({
          code: "custom",
          path: ["header", button],
          message: `${action} scrolls to the ${section} section, which is not enabled`,
        });
      }
    }
  });
export type ProgramPresentationConfig = z.infer<typeof programPresentationConfigSchema>;
/** A configuration as written: the fields with a default may be left out. */
export type ProgramPresentationConfigInput = z.input<typeof programPresentationConfigSchema>;

/**
 * Product-points widget: what a product page says about the points a product earns.
 * `{points}` in the template is replaced by the computed number.
 */
const productPointsFields = z.object({
  enabled: z.boolean(),
  template: z.string().min(1).max(200),
  /** Hide the widget when the product earns no points, rather than showing 0. */
  hideWhenZero: z.boolean(),
  showIcon: z.boolean(),
  textColor: colorSchema,
  accentColor: colorSchema,
});
export const productPointsConfigSchema = productPointsFields.extend({
  translations: translations(z.strictObject(textsOf(productPointsFields.shape, ["template"]))),
});
export type ProductPointsConfig = z.infer<typeof productPointsConfigSchema>;

/**
 * Cart widget: the points the cart will earn and, for an identified customer, the balance and
 * the rewards they can afford. `{points}` in templates is replaced by a number.
 */
const cartFields = z.object({
  enabled: z.boolean(),
  title: label,
  earnTemplate: z.string().min(1).max(200),
  showBalance: z.boolean(),
  balanceTemplate: z.string().min(1).max(200),
  showRewards: z.boolean(),
  claimButtonText: label,
  ...claimFields,
  /** Invitation shown to visitors who are not identified. */
  signedOutText: label.optional(),
  loginUrl: optionalUrlSchema.optional(),
  accentColor: colorSchema,
});
export const cartConfigSchema = cartFields.extend({
  translations: translations(
    z.strictObject(
      textsOf(cartFields.shape, [
        "title",
        "earnTemplate",
        "balanceTemplate",
        "claimButtonText",
        "signedOutText",
      ]),
    ),
  ),
});
export type CartConfig = z.infer<typeof cartConfigSchema>;
export type CartConfigInput = z.input<typeof cartConfigSchema>;

/**
 * The launcher (beyond the spec): a floating button on every page of the store, opening a panel
 * with the customer's balance, club, rewards, codes and invitations, or the programme's pitch
 * for a visitor. It shows only where the store's theme places `<loyalty-launcher>`.
 */
const launcherFields = z.object({
  enabled: z.boolean(),
  /** The floating button's text. */
  label: label.min(1),
  position: z.enum(["bottom-right", "bottom-left"]),
  /** The panel's heading. */
  title: label,
  /** What visitors read: why join. */
  visitorText: z.string().max(2000),
  /** Where visitors create an account, and where they sign in. */
  signUpUrl: optionalUrlSchema.optional(),
  loginUrl: optionalUrlSchema.optional(),
  waysToEarn: z.array(wayToEarnSchema).max(20),
  showRewards: z.boolean(),
  ...claimFields,
  /** "Invite a friend", shown to signed-in customers while the referral programme is active. */
  showReferral: z.boolean(),
  accentColor: colorSchema,
});
export const launcherConfigSchema = launcherFields
  .extend({
    translations: translations(
      z.strictObject({
        ...textsOf(launcherFields.shape, ["label", "title", "visitorText"]),
        waysToEarn: z.array(wayToEarnTexts).optional(),
      }),
    ),
  })
  .superRefine((config, ctx) => {
    itemCountIssue(ctx, config.waysToEarn, config.translations, ["waysToEarn"]);
  });
export type LauncherConfig = z.infer<typeof launcherConfigSchema>;
export type LauncherConfigInput = z.input<typeof launcherConfigSchema>;

/** What every widget needs of its store: language, currency and the branding fallback colour. */
export const widgetStoreSchema = z.object({
  domain: domainSchema,
  language: languageSchema,
  currency: currencySchema,
  brandingColor: colorSchema,
});

export const cartWidgetResponseSchema = z.object({
  store: widgetStoreSchema,
  config: cartConfigSchema,
});
export const productPointsWidgetResponseSchema = z.object({
  store: widgetStoreSchema,
  config: productPointsConfigSchema,
});
export const programPresentationWidgetResponseSchema = z.object({
  store: widgetStoreSchema,
  config: programPresentationConfigSchema,
});
/**
 * The launcher's configuration, with what the panel tells of the store's referral programme:
 * null while there is none or it is paused (the panel then offers no invitation).
 */
export const launcherWidgetResponseSchema = z.object({
  store: widgetStoreSchema,
  config: launcherConfigSchema,
  referral: referralOfferSchema.nullable(),
});
export type LauncherWidgetResponse = z.infer<typeof launcherWidgetResponseSchema>;
export type CartWidgetResponse = z.infer<typeof cartWidgetResponseSchema>;
export type ProductPointsWidgetResponse = z.infer<typeof productPointsWidgetResponseSchema>;
export type ProgramPresentationWidgetResponse = z.infer<
  typeof programPresentationWidgetResponseSchema
>;

export const widgetKindSchema = z.enum([
  "cart",
  "product-points",
  "program-presentation",
  "launcher",
]);
export type WidgetKind = z.infer<typeof widgetKindSchema>;

/** The configuration schema of each widget kind, for the back-office to validate with. */
export const widgetConfigSchemas = {
  cart: cartConfigSchema,
  "product-points": productPointsConfigSchema,
  "program-presentation": programPresentationConfigSchema,
  launcher: launcherConfigSchema,
} as const satisfies Record<WidgetKind, z.ZodType>;
