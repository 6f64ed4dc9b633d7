import { msg, str } from "@lit/localize";
import type {
  AdminStore,
  ButtonAction,
  CartConfig,
  LauncherConfig,
  ProductPointsConfig,
  ProgramPresentationConfig,
  WayToEarn,
} from "@loyalty/shared-types";
import { html, nothing, type TemplateResult } from "lit";
import { formatNumber } from "../../ui/format.js";
import {
  inputField,
  selectField,
  textareaField,
  type SelectFieldOptions,
} from "../../ui/form-field.js";
import { valueAt } from "./draft.js";
import { checkboxField, colorField } from "./fields.js";

/*
 * The fields of each widget's configuration. Every control's `name` is the path of its value
 * in the configuration (`header.primaryButtonText`, `sections.faq.items.0.question`): the
 * screen writes what the user types into the draft at that path, and the issues of the schema
 * and of the server land next to the field of their path.
 *
 * While the merchant translates (`context.translation`), the same functions draw only the
 * texts, each named `translations.<language>.<path>` and showing the default language's text
 * it translates; an empty field stands for that text. The rest (switches, colours, choices,
 * addresses, adding and removing items) is the default language's form only, and a fieldset
 * left without a field is not drawn.
 */

/** What a part of the form draws: a template, or nothing (a field not shown). */
type Part = TemplateResult | typeof nothing;

/** The lists whose items the merchant adds and removes: the programme page's and the launcher's. */
export type ItemList = "howToEarn" | "faq" | "waysToEarn";

export const MAX_ITEMS: Record<ItemList, number> = { howToEarn: 20, faq: 50, waysToEarn: 20 };

/** Where each list is in its configuration. */
export const ITEM_PATHS: Record<ItemList, string> = {
  howToEarn: "sections.howToEarn.items",
  faq: "sections.faq.items",
  waysToEarn: "waysToEarn",
};

export interface FieldsContext {
  store: AdminStore;
  /** The message of each field in trouble, by path. */
  errors: Readonly<Record<string, string>>;
  add: (list: ItemList) => void;
  remove: (list: ItemList, index: number) => void;
  /** The language the form translates into, when it is not the store's default. */
  translation?: Translation | undefined;
}

export interface Translation {
  /** Its tag, as the draft's `translations` names it. */
  language: string;
  /** The draft's texts in that language. */
  texts: Readonly<Record<string, unknown>>;
  /**
   * The less precise translations whose texts the storefront shows for a text this one lacks,
   * nearest first (`fr` for `fr-CA`): by name, with their texts.
   */
  fallbacks: readonly { name: string; texts: Readonly<Record<string, unknown>> }[];
  /** The store's default language, by name ("English"): the texts when none of them has one. */
  defaultName: string;
}

/** How much of a long default text the hint of its translation quotes. */
const QUOTED_LENGTH = 200;

/**
 * The options of the field translating the text at `path`, whose default-language text is
 * `base`. The hint quotes what the storefront shows while the field is empty (the placeholder
 * shows it whole): the nearest less precise translation's text, else `base`.
 */
function translated(
  context: FieldsContext,
  translation: Translation,
  path: string,
  base: string | undefined,
  hint: string | undefined,
) {
  const name = `translations.${translation.language}.${path}`;
  const value = valueAt(translation.texts, path);
  const shown = translation.fallbacks
    .map((fallback) => ({ name: fallback.name, text: valueAt(fallback.texts, path) }))
    .find(
      (fallback): fallback is { name: string; text: string } =>
        typeof fallback.text === "string" && fallback.text !== "",
    ) ?? {
    name: translation.defaultName,
    text: base ?? "",
  };
  const quoted =
    shown.text.length > QUOTED_LENGTH
      ? `${shown.text.slice(0, QUOTED_LENGTH).trimEnd()}…`
      : shown.text;
  const quote =
    shown.text === "" ? msg(str`Empty in ${shown.name}.`) : msg(str`In ${shown.name}: “${quoted}”`);
  return {
    name,
    value: typeof value === "string" ? value : "",
    hint: hint ? `${hint} ${quote}` : quote,
    error: context.errors[name],
    lang: translation.language,
    ...(shown.text === "" ? {} : { placeholder: shown.text }),
  };
}

/** A group of fields; nothing when none of them is drawn. */
function group(legend: string, parts: readonly Part[], className?: string): Part {
  if (parts.every((part) => part === nothing)) return nothing;
  return html`<fieldset class=${className ?? nothing}>
    <legend>${legend}</legend>
    ${parts}
  </fieldset>`;
}

const POINTS_HINT = () => msg("{points} is replaced by the number of points.");
const URL_HINT = () => msg("An address such as https://shop.example/account/login, or empty.");

function text(
  context: FieldsContext,
  name: string,
  label: string,
  value: string | undefined,
  options: { hint?: string; required?: boolean; type?: "text" | "url" } = {},
): Part {
  const { translation } = context;
  if (translation) {
    return options.type === "url"
      ? nothing
      : inputField({ label, ...translated(context, translation, name, value, options.hint) });
  }
  return inputField({
    name,
    label,
    value: value ?? "",
    type: options.type ?? "text",
    ...(options.type === "url" ? { inputmode: "url" as const, spellcheck: false } : {}),
    hint: options.hint,
    required: options.required ?? false,
    error: context.errors[name],
  });
}

/** A text of several lines. */
function longText(
  context: FieldsContext,
  name: string,
  label: string,
  value: string | undefined,
  options: { hint?: string; rows: number },
): Part {
  const { translation } = context;
  if (translation) {
    return textareaField({
      label,
      rows: options.rows,
      ...translated(context, translation, name, value, options.hint),
    });
  }
  return textareaField({
    name,
    label,
    rows: options.rows,
    value: value ?? "",
    hint: options.hint,
    error: context.errors[name],
  });
}

/** A choice among options: the default language's form only. */
function choice(context: FieldsContext, options: Omit<SelectFieldOptions, "error">): Part {
  if (context.translation) return nothing;
  return selectField({ ...options, error: context.errors[options.name] });
}

function check(
  context: FieldsContext,
  name: string,
  label: string,
  checked: boolean | undefined,
  hint?: string,
): Part {
  if (context.translation) return nothing;
  return checkboxField({
    name,
    label,
    checked: checked ?? false,
    hint,
    error: context.errors[name],
  });
}

function colour(
  context: FieldsContext,
  name: string,
  label: string,
  value: string,
  hint: string,
  fallback: string,
): Part {
  if (context.translation) return nothing;
  return colorField({ name, label, value, hint, fallback, error: context.errors[name] });
}

const BRANDING_HINT = () => msg("Empty: the store's branding colour.");
const THEME_TEXT_HINT = () => msg("Empty: the theme's text colour.");

export function productPointsFields(
  config: ProductPointsConfig,
  context: FieldsContext,
): TemplateResult {
  return html`${group(msg("Content"), [
    check(context, "enabled", msg("Show the widget on product pages"), config.enabled),
    text(context, "template", msg("Text"), config.template, {
      hint: POINTS_HINT(),
      required: true,
    }),
    check(
      context,
      "hideWhenZero",
      msg("Hide it when the product earns no points"),
      config.hideWhenZero,
    ),
    check(context, "showIcon", msg("Show the points icon"), config.showIcon),
  ])}
  ${group(msg("Colours"), [
    colour(
      context,
      "textColor",
      msg("Text colour"),
      config.textColor,
      THEME_TEXT_HINT(),
      "#000000",
    ),
    colour(
      context,
      "accentColor",
      msg("Accent colour"),
      config.accentColor,
      BRANDING_HINT(),
      context.store.brandingColor,
    ),
  ])}`;
}

export function cartFields(config: CartConfig, context: FieldsContext): TemplateResult {
  return html`${group(msg("Content"), [
    check(context, "enabled", msg("Show the widget in the cart"), config.enabled),
    text(context, "title", msg("Title"), config.title),
    text(context, "earnTemplate", msg("Points the cart earns"), config.earnTemplate, {
      hint: POINTS_HINT(),
      required: true,
    }),
  ])}
  ${group(msg("Signed-in customers"), [
    check(context, "showBalance", msg("Show the customer's balance"), config.showBalance),
    text(context, "balanceTemplate", msg("Balance text"), config.balanceTemplate, {
      hint: POINTS_HINT(),
      required: true,
    }),
    check(
      context,
      "showRewards",
      msg("Show the rewards the customer can claim"),
      config.showRewards,
    ),
    check(context, "confirmClaims", CONFIRM_LABEL(), config.confirmClaims, CONFIRM_HINT()),
    text(context, "claimButtonText", msg("Claim button"), config.claimButtonText),
  ])}
  ${group(msg("Visitors"), [
    text(context, "signedOutText", msg("Invitation to sign in"), config.signedOutText, {
      hint: msg("Shown to visitors who are not signed in."),
    }),
    text(context, "loginUrl", msg("Sign-in page"), config.loginUrl, {
      type: "url",
      hint: URL_HINT(),
    }),
  ])}
  ${accentColour(context, config.accentColor)}`;
}

/** The colours of a widget whose only colour is its accent: the cart's and the launcher's. */
function accentColour(context: FieldsContext, value: string): Part {
  return group(msg("Colours"), [
    colour(
      context,
      "accentColor",
      msg("Accent colour"),
      value,
      BRANDING_HINT(),
      context.store.brandingColor,
    ),
  ]);
}

function actionOptions(optional: boolean) {
  return [
    ...(optional ? [{ value: "", label: msg("No second button") }] : []),
    { value: "scroll-points", label: msg("Go to “How to earn”") },
    { value: "scroll-redeem", label: msg("Go to “Rewards”") },
    { value: "scroll-history", label: msg("Go to the customer's points") },
    { value: "scroll-faq", label: msg("Go to the FAQ") },
    { value: "url", label: msg("Open an address") },
  ];
}

function button(
  context: FieldsContext,
  which: "primary" | "secondary",
  config: ProgramPresentationConfig["header"],
): TemplateResult {
  const primary = which === "primary";
  const action: ButtonAction | undefined = primary
    ? config.primaryButtonAction
    : config.secondaryButtonAction;
  const label = primary ? config.primaryButtonText : config.secondaryButtonText;
  const url = primary ? config.primaryButtonUrl : config.secondaryButtonUrl;
  const name = (field: "Text" | "Action" | "Url") => `header.${which}Button${field}`;
  // Without the action's list above it, "Button text" would not say which button.
  const textLabel = !context.translation
    ? msg("Button text")
    : primary
      ? msg("Text of the first button")
      : msg("Text of the second button");
  return html`${choice(context, {
    name: name("Action"),
    label: primary ? msg("First button") : msg("Second button"),
    value: action ?? "",
    options: actionOptions(!primary),
  })}
  ${
    primary || action !== undefined
      ? text(
          context,
          name("Text"),
          textLabel,
          label,
          context.translation ? {} : { hint: msg("Empty: no button.") },
        )
      : nothing
  }
  ${
    action === "url"
      ? text(context, name("Url"), msg("Address the button opens"), url, {
          type: "url",
          required: true,
          hint: msg("Such as https://shop.example/loyalty."),
        })
      : nothing
  }`;
}

function sectionToggle(
  context: FieldsContext,
  section: keyof ProgramPresentationConfig["sections"],
  enabled: boolean,
): Part {
  return check(context, `sections.${section}.enabled`, msg("Show this section"), enabled);
}

function items(
  context: FieldsContext,
  list: ItemList,
  count: number,
  item: (index: number) => readonly Part[],
  labels: { item: (position: string) => string; add: string },
): Part {
  const indexes = Array.from({ length: count }, (_, index) => index);
  const translating = context.translation !== undefined;
  if (translating && count === 0) return nothing;
  return html`${indexes.map((index) => {
    const position = formatNumber(index + 1);
    return group(
      labels.item(position),
      [
        ...item(index),
        translating
          ? nothing
          : html`<button
              class="button button--quiet"
              type="button"
              @click=${() => context.remove(list, index)}
            >
              ${msg("Remove")}<span class="visually-hidden"> ${labels.item(position)}</span>
            </button>`,
      ],
      "item",
    );
  })}
  ${
    translating
      ? nothing
      : count < MAX_ITEMS[list]
        ? html`<button
            class="button"
            type="button"
            id="add-${list}"
            @click=${() => context.add(list)}
          >
            ${labels.add}
          </button>`
        : html`<p class="muted" id="add-${list}" tabindex="-1">
            ${msg(str`At most ${formatNumber(MAX_ITEMS[list])} items.`)}
          </p>`
  }`;
}

export const ICON_OPTIONS = () => [
  { value: "order", label: msg("An order") },
  { value: "referral", label: msg("A referral") },
  { value: "club", label: msg("A club") },
  { value: "birthday", label: msg("A birthday") },
  { value: "social", label: msg("Social networks") },
  { value: "custom", label: msg("Other") },
];

/** A list of ways to earn: the programme page's and the launcher's. */
function waysToEarn(context: FieldsContext, list: ItemList, ways: readonly WayToEarn[]): Part {
  return items(
    context,
    list,
    ways.length,
    (index) => {
      const item = ways[index]!;
      const path = `${ITEM_PATHS[list]}.${index}`;
      return [
        choice(context, {
          name: `${path}.icon`,
          label: msg("Icon"),
          value: item.icon,
          options: ICON_OPTIONS(),
        }),
        text(context, `${path}.title`, msg("Title"), item.title),
        longText(context, `${path}.text`, msg("Text"), item.text, { rows: 2 }),
      ];
    },
    {
      item: (position) => msg(str`Way to earn ${position}`),
      add: msg("Add a way to earn"),
    },
  );
}

const CONFIRM_LABEL = () => msg("Ask the customer to confirm before spending points");
const CONFIRM_HINT = () => msg("The widget names the points, the reward and its conditions first.");

export function launcherFields(config: LauncherConfig, context: FieldsContext): TemplateResult {
  return html`${group(msg("Content"), [
    check(
      context,
      "enabled",
      msg("Show the launcher on the store's pages"),
      config.enabled,
      msg("On the pages where the theme places the launcher's tag."),
    ),
    text(context, "label", msg("Button text"), config.label, { required: true }),
    choice(context, {
      name: "position",
      label: msg("Button position"),
      value: config.position,
      options: [
        { value: "bottom-right", label: msg("Bottom right") },
        { value: "bottom-left", label: msg("Bottom left") },
      ],
    }),
    text(context, "title", msg("Panel title"), config.title),
  ])}
  ${group(msg("Visitors"), [
    longText(context, "visitorText", msg("Why join"), config.visitorText, {
      rows: 3,
      hint: msg("What visitors who are not signed in read first."),
    }),
    text(context, "signUpUrl", msg("Sign-up page"), config.signUpUrl, {
      type: "url",
      hint: URL_HINT(),
    }),
    text(context, "loginUrl", msg("Sign-in page"), config.loginUrl, {
      type: "url",
      hint: URL_HINT(),
    }),
  ])}
  ${group(msg("Ways to earn"), [waysToEarn(context, "waysToEarn", config.waysToEarn)])}
  ${group(msg("Signed-in customers"), [
    check(context, "showRewards", msg("Show the rewards"), config.showRewards),
    check(context, "confirmClaims", CONFIRM_LABEL(), config.confirmClaims, CONFIRM_HINT()),
    check(
      context,
      "showReferral",
      msg("Let customers invite a friend"),
      config.showReferral,
      msg("Shown while the referral programme is active."),
    ),
  ])}
  ${accentColour(context, config.accentColor)}`;
}

export function presentationFields(
  config: ProgramPresentationConfig,
  context: FieldsContext,
): TemplateResult {
  const { header, sections } = config;
  const { howToEarn, rewards, history, faq } = sections;
  return html`${group(msg("Banner"), [
    longText(context, "header.text", msg("Banner text"), header.text, { rows: 3 }),
    check(
      context,
      "header.isRawHtml",
      msg("The text is HTML"),
      header.isRawHtml,
      msg("Links and formatting are kept; scripts and styles are removed before display."),
    ),
    button(context, "primary", header),
    button(context, "secondary", header),
    text(context, "header.backgroundImageUrl", msg("Image"), header.backgroundImageUrl, {
      type: "url",
      hint: msg("An https address of the banner's image, or empty for none."),
    }),
    text(
      context,
      "header.mobileBackgroundImageUrl",
      msg("Image on phones"),
      header.mobileBackgroundImageUrl,
      { type: "url", hint: msg("Empty: the same image.") },
    ),
    choice(context, {
      name: "header.imageFit",
      label: msg("Image size"),
      value: header.imageFit,
      options: [
        { value: "cover", label: msg("Cropped to the banner's height") },
        { value: "ratio", label: msg("Whole, in its own proportions") },
      ],
    }),
    choice(context, {
      name: "header.mobileLayout",
      label: msg("Layout on phones"),
      value: header.mobileLayout,
      options: [
        { value: "overlay", label: msg("Text over the image") },
        { value: "stacked", label: msg("Text under the image") },
      ],
    }),
    choice(context, {
      name: "header.contentPosition",
      label: msg("Text position"),
      value: header.contentPosition,
      options: [
        { value: "left", label: msg("Left") },
        { value: "center", label: msg("Centre") },
        { value: "right", label: msg("Right") },
      ],
    }),
    check(context, "header.contentCard", msg("Text on an opaque card"), header.contentCard),
    colour(
      context,
      "header.backgroundColor",
      msg("Background colour"),
      header.backgroundColor,
      BRANDING_HINT(),
      context.store.brandingColor,
    ),
    colour(
      context,
      "header.textColor",
      msg("Text colour"),
      header.textColor,
      THEME_TEXT_HINT(),
      "#000000",
    ),
  ])}
  ${group(msg("How to earn"), [
    sectionToggle(context, "howToEarn", howToEarn.enabled),
    text(context, "sections.howToEarn.title", msg("Title"), howToEarn.title),
    waysToEarn(context, "howToEarn", howToEarn.items),
  ])}
  ${group(msg("Rewards"), [
    sectionToggle(context, "rewards", rewards.enabled),
    text(context, "sections.rewards.title", msg("Title"), rewards.title),
    text(context, "sections.rewards.emptyText", msg("Text without rewards"), rewards.emptyText, {
      hint: msg("Shown when the store has no reward to list."),
    }),
    check(
      context,
      "sections.rewards.confirmClaims",
      CONFIRM_LABEL(),
      rewards.confirmClaims,
      CONFIRM_HINT(),
    ),
  ])}
  ${group(msg("The customer's points"), [
    sectionToggle(context, "history", history.enabled),
    text(context, "sections.history.title", msg("Title"), history.title),
    text(
      context,
      "sections.history.signedOutText",
      msg("Invitation to sign in"),
      history.signedOutText,
      { hint: msg("Shown to visitors who are not signed in.") },
    ),
    text(context, "sections.history.loginUrl", msg("Sign-in page"), history.loginUrl, {
      type: "url",
      hint: URL_HINT(),
    }),
  ])}
  ${group(msg("FAQ"), [
    sectionToggle(context, "faq", faq.enabled),
    text(context, "sections.faq.title", msg("Title"), faq.title),
    items(
      context,
      "faq",
      faq.items.length,
      (index) => {
        const item = faq.items[index]!;
        const path = `sections.faq.items.${index}`;
        return [
          text(context, `${path}.question`, msg("Question"), item.question),
          longText(context, `${path}.answer`, msg("Answer"), item.answer, { rows: 3 }),
        ];
      },
      { item: (position) => msg(str`Question ${position}`), add: msg("Add a question") },
    ),
  ])}`;
}
