import {
  widgetConfigSchemas,
  type PresentationHeader,
  type ProgramPresentationConfig,
  type WidgetKind,
} from "@loyalty/shared-types";
import type pg from "pg";
import type { Logger } from "pino";
import sanitizeHtml from "sanitize-html";
import type { Queryable } from "../../db/pool.js";
import { parseRequest, toValidationIssues } from "../../http/validate.js";
import type {
  CachedSection,
  MaybePromise,
  StoreSummary,
  StorefrontCache,
  StorefrontSection,
} from "../storefront/storefront.cache.js";
import type { ReferralsService } from "../referrals/referrals.service.js";
import { defaultWidgetConfig, type WidgetConfigs } from "./widgets.defaults.js";
import {
  deleteWidgetConfiguration,
  findWidgetConfiguration,
  saveWidgetConfiguration,
} from "./widgets.repository.js";

/**
 * What a store may write in a banner: text formatting and links, nothing that runs or loads.
 * Links opening a new tab cannot reach back to the store's page.
 */
const BANNER_HTML: sanitizeHtml.IOptions = {
  allowedTags: [
    "p",
    "br",
    "strong",
    "b",
    "em",
    "i",
    "u",
    "s",
    "small",
    "span",
    "h1",
    "h2",
    "h3",
    "h4",
    "ul",
    "ol",
    "li",
    "a",
    "blockquote",
  ],
  allowedAttributes: { a: ["href", "target", "rel"] },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesAppliedToAttributes: ["href"],
  transformTags: {
    a: (tagName, { target, rel: _rel, ...attribs }) => ({
      tagName,
      attribs: target === "_blank" ? { ...attribs, target, rel: "noopener noreferrer" } : attribs,
    }),
  },
  exclusiveFilter: (frame) => frame.tag === "a" && !frame.attribs["href"],
};

/**
 * The header as a storefront paints it: the spec's fallbacks applied (an empty mobile image
 * reuses the desktop one; an unset background is the branding colour) and raw HTML sanitised,
 * here, once per configuration, so that no browser has to carry a sanitiser.
 */
function servedHeader(header: PresentationHeader, brandingColor: string): PresentationHeader {
  return {
    ...header,
    mobileBackgroundImageUrl: header.mobileBackgroundImageUrl || (header.backgroundImageUrl ?? ""),
    backgroundColor: header.backgroundColor || brandingColor,
    ...(header.isRawHtml && header.text !== undefined
      ? { text: sanitizeHtml(header.text, BANNER_HTML) }
      : {}),
  };
}

/**
 * GET /store/widget/{cart,product-points,program-presentation,launcher}: the configuration the
 * back-office saved for each widget, validated by the shared schemas, with the store's
 * language, currency and branding colour. Served from memory like the other storefront reads,
 * and forgotten when the configuration or the store changes.
 */
export class WidgetsService {
  /** Each widget's response body (JSON, encoded once), per store. */
  private readonly sections: Record<WidgetKind, StorefrontSection<Buffer>>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly storefront: StorefrontCache,
    private readonly referrals: Pick<ReferralsService, "offer">,
    private readonly logger: Logger,
  ) {
    const section = (kind: WidgetKind): StorefrontSection<Buffer> => ({
      load: async (store) => {
        const config = await this.load(store, kind);
        const { domain, language, currency, brandingColor } = store;
        const json = JSON.stringify({
          store: { domain, language, currency, brandingColor },
          config,
          // The launcher invites friends only while the programme takes invitations.
          ...(kind === "launcher" ? { referral: await this.referrals.offer(store) } : {}),
        });
        return { value: Buffer.from(json), version: json };
      },
    });
    this.sections = {
      cart: section("cart"),
      "product-points": section("product-points"),
      "program-presentation": section("program-presentation"),
      launcher: section("launcher"),
    };
  }

  /** The response body; undefined when no store has the domain. */
  configuration(domain: string, kind: WidgetKind): MaybePromise<CachedSection<Buffer> | undefined> {
    return this.storefront.section(domain, this.sections[kind]);
  }

  /** Saves a widget's configuration; a configuration the schema refuses is 400 naming the fields. */
  async save<K extends WidgetKind>(
    storeId: number,
    kind: K,
    config: unknown,
    db: Queryable = this.pool,
  ): Promise<WidgetConfigs[K]> {
    const valid = parseRequest(widgetConfigSchemas[kind], config, "body") as WidgetConfigs[K];
    await saveWidgetConfiguration(db, storeId, kind, valid);
    return valid;
  }

  /**
   * Deletes a widget's saved configuration: the default, in the store's language (which it
   * follows from then on), applies again. Nothing saved is no error.
   */
  async reset(storeId: number, kind: WidgetKind): Promise<void> {
    await deleteWidgetConfiguration(this.pool, storeId, kind);
  }

  /**
   * A widget's configuration as the back-office reads it: the merchant's own, exactly as saved
   * (the presentation header's fallbacks unresolved and its HTML unsanitised: those are how a
   * storefront paints it), so that saving back what was read changes nothing. While there is
   * none, the default one in the store's language. A saved configuration the schema refuses
   * (written around the back-office, or by an older version) is logged with its issues and
   * counts as none: the default is what storefronts serve instead.
   */
  async stored<K extends WidgetKind>(
    store: Pick<StoreSummary, "id" | "language">,
    kind: K,
  ): Promise<{ config: WidgetConfigs[K]; isDefault: boolean; updatedAt: Date | null }> {
    const saved = await findWidgetConfiguration(this.pool, store.id, kind);
    if (saved !== undefined) {
      const parsed = widgetConfigSchemas[kind].safeParse(saved.config);
      if (parsed.success) {
        return {
          config: parsed.data as WidgetConfigs[K],
          isDefault: false,
          updatedAt: saved.updatedAt,
        };
      }
      this.logger.error(
        { storeId: store.id, widget: kind, issues: toValidationIssues(parsed.error, "body") },
        "saved widget configuration is invalid: serving the default one",
      );
    }
    return { config: defaultWidgetConfig(kind, store.language), isDefault: true, updatedAt: null };
  }

  /** The configuration a storefront paints: the presentation header with its fallbacks. */
  private async load(store: StoreSummary, kind: WidgetKind): Promise<WidgetConfigs[WidgetKind]> {
    const { config } = await this.stored(store, kind);
    if (kind !== "program-presentation") return config;
    const presentation = config as ProgramPresentationConfig;
    const { header, translations } = presentation;
    return {
      ...presentation,
      header: servedHeader(header, store.brandingColor),
      // A translated banner is the same raw HTML in another language: sanitised the same.
      ...(translations && header.isRawHtml
        ? {
            translations: Object.fromEntries(
              Object.entries(translations).map(([language, texts]) => [
                language,
                texts.header?.text === undefined
                  ? texts
                  : {
                      ...texts,
                      header: {
                        ...texts.header,
                        text: sanitizeHtml(texts.header.text, BANNER_HTML),
                      },
                    },
              ]),
            ),
          }
        : {}),
    };
  }
}
