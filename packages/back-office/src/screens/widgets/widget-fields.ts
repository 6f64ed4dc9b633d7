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
import { inputField, selectField, textareaField } from "../../ui/form-field.js";
import { checkboxField, colorField } from "./fields.js";

/*
 * The fields of each widget's configuration. Every control's `name` is the path of its value
 * in the configuration (`header.primaryButtonText`, `sections.faq.items.0.question`): the
 * screen writes what the user types into the draft at that path, and the issues of the schema
 * and of the server land next to the field of their path.
 */

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
}

const POINTS_HINT = () => msg("{points} is replaced by the number of points.");
const URL_HINT = () => msg("An address such as https://shop.example/account/login, or empty.");

function text(
  context: FieldsContext,
  name: string,
  label: string,
  value: string | undefined,
  options: { hint?: string; required?: boolean; type?: "text" | "url" } = {},
): TemplateResult {
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

function check(
  context: FieldsContext,
  name: string,
  label: string,
  checked: boolean | undefined,
  hint?: string,
): TemplateResult {
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
): TemplateResult {
  return colorField({ name, label, value, hint, fallback, error: context.errors[name] });
}

const BRANDING_HINT = () => msg("Empty: the store's branding colour.");
const THEME_TEXT_HINT = () => msg("Empty: the theme's text colour.");

export function productPointsFields(
  config: ProductPointsConfig,
  context: FieldsContext,
): TemplateResult {
  return html`<fieldset>
      <legend>${msg("Content")}</legend>
      ${check(context, "enabled", msg("Show the widget on product pages"), config.enabled)}
      ${text(context, "template", msg("Text"), config.template, {
        hint: POINTS_HINT(),
        required: true,
      })}
      ${check(
        context,
        "hideWhenZero",
        msg("Hide it when the product earns no points"),
        config.hideWhenZero,
      )}
      ${check(context, "showIcon", msg("Show the points icon"), config.showIcon)}
    </fieldset>
    <fieldset>
      <legend>${msg("Colours")}</legend>
      ${colour(context, "textColor", msg("Text colour"), config.textColor, THEME_TEXT_HINT(), "#000000")}
      ${colour(
        context,
        "accentColor",
        msg("Accent colour"),
        config.accentColor,
        BRANDING_HINT(),
        context.store.brandingColor,
      )}
    </fieldset>`;
}

export function cartFields(config: CartConfig, context: FieldsContext): TemplateResult {
  return html`<fieldset>
      <legend>${msg("Content")}</legend>
      ${check(context, "enabled", msg("Show the widget in the cart"), config.enabled)}
      ${text(context, "title", msg("Title"), config.title)}
      ${text(context, "earnTemplate", msg("Points the cart earns"), config.earnTemplate, {
        hint: POINTS_HINT(),
        required: true,
      })}
    </fieldset>
    <fieldset>
      <legend>${msg("Signed-in customers")}</legend>
      ${check(context, "showBalance", msg("Show the customer's balance"), config.showBalance)}
      ${text(context, "balanceTemplate", msg("Balance text"), config.balanceTemplate, {
        hint: POINTS_HINT(),
        required: true,
      })}
      ${check(
        context,
        "showRewards",
        msg("Show the rewards the customer can claim"),
        config.showRewards,
      )}
      ${check(context, "confirmClaims", CONFIRM_LABEL(), config.confirmClaims, CONFIRM_HINT())}
      ${text(context, "claimButtonText", msg("Claim button"), config.claimButtonText)}
    </fieldset>
    <fieldset>
      <legend>${msg("Visitors")}</legend>
      ${text(context, "signedOutText", msg("Invitation to sign in"), config.signedOutText, {
        hint: msg("Shown to visitors who are not signed in."),
      })}
      ${text(context, "loginUrl", msg("Sign-in page"), config.loginUrl, {
        type: "url",
        hint: URL_HINT(),
      })}
    </fieldset>
    ${accentColour(context, config.accentColor)}`;
}

/** The colours of a widget whose only colour is its accent: the cart's and the launcher's. */
function accentColour(context: FieldsContext, value: string): TemplateResult {
  return html`<fieldset>
    <legend>${msg("Colours")}</legend>
    ${colour(
      context,
      "accentColor",
      msg("Accent colour"),
      value,
      BRANDING_HINT(),
      context.store.brandingColor,
    )}
  </fieldset>`;
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
  return html`${selectField({
    name: name("Action"),
    label: primary ? msg("First button") : msg("Second button"),
    value: action ?? "",
    options: actionOptions(!primary),
    error: context.errors[name("Action")],
  })}
  ${
    primary || action !== undefined
      ? text(context, name("Text"), msg("Button text"), label, {
          hint: msg("Empty: no button."),
        })
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
) {
  return check(context, `sections.${section}.enabled`, msg("Show this section"), enabled);
}

function items(
  context: FieldsContext,
  list: ItemList,
  count: number,
  item: (index: number) => TemplateResult,
  labels: { item: (position: string) => string; add: string },
): TemplateResult {
  const indexes = Array.from({ length: count }, (_, index) => index);
  return html`${indexes.map((index) => {
    const position = formatNumber(index + 1);
    return html`<fieldset class="item">
      <legend>${labels.item(position)}</legend>
      ${item(index)}
      <button
        class="button button--quiet"
        type="button"
        @click=${() => context.remove(list, index)}
      >
        ${msg("Remove")}<span class="visually-hidden"> ${labels.item(position)}</span>
      </button>
    </fieldset>`;
  })}
  ${
    count < MAX_ITEMS[list]
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
function waysToEarn(context: FieldsContext, list: ItemList, ways: readonly WayToEarn[]) {
  const errors = context.errors;
  return items(
    context,
    list,
    ways.length,
    (index) => {
      const item = ways[index]!;
      const path = `${ITEM_PATHS[list]}.${index}`;
      return html`${selectField({
        name: `${path}.icon`,
        label: msg("Icon"),
        value: item.icon,
        options: ICON_OPTIONS(),
        error: errors[`${path}.icon`],
      })}
      ${text(context, `${path}.title`, msg("Title"), item.title)}
      ${textareaField({
        name: `${path}.text`,
        label: msg("Text"),
        rows: 2,
        value: item.text,
        error: errors[`${path}.text`],
      })}`;
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
  return html`<fieldset>
      <legend>${msg("Content")}</legend>
      ${check(
        context,
        "enabled",
        msg("Show the launcher on the store's pages"),
        config.enabled,
        msg("On the pages where the theme places the launcher's tag."),
      )}
      ${text(context, "label", msg("Button text"), config.label, { required: true })}
      ${selectField({
        name: "position",
        label: msg("Button position"),
        value: config.position,
        options: [
          { value: "bottom-right", label: msg("Bottom right") },
          { value: "bottom-left", label: msg("Bottom left") },
        ],
        error: context.errors["position"],
      })}
      ${text(context, "title", msg("Panel title"), config.title)}
    </fieldset>
    <fieldset>
      <legend>${msg("Visitors")}</legend>
      ${textareaField({
        name: "visitorText",
        label: msg("Why join"),
        rows: 3,
        value: config.visitorText,
        hint: msg("What visitors who are not signed in read first."),
        error: context.errors["visitorText"],
      })}
      ${text(context, "signUpUrl", msg("Sign-up page"), config.signUpUrl, {
        type: "url",
        hint: URL_HINT(),
      })}
      ${text(context, "loginUrl", msg("Sign-in page"), config.loginUrl, {
        type: "url",
        hint: URL_HINT(),
      })}
    </fieldset>
    <fieldset>
      <legend>${msg("Ways to earn")}</legend>
      ${waysToEarn(context, "waysToEarn", config.waysToEarn)}
    </fieldset>
    <fieldset>
      <legend>${msg("Signed-in customers")}</legend>
      ${check(context, "showRewards", msg("Show the rewards"), config.showRewards)}
      ${check(context, "confirmClaims", CONFIRM_LABEL(), config.confirmClaims, CONFIRM_HINT())}
      ${check(
        context,
        "showReferral",
        msg("Let customers invite a friend"),
        config.showReferral,
        msg("Shown while the referral programme is active."),
      )}
    </fieldset>
    ${accentColour(context, config.accentColor)}`;
}

export function presentationFields(
  config: ProgramPresentationConfig,
  context: FieldsContext,
): TemplateResult {
  const { header, sections } = config;
  const { howToEarn, rewards, history, faq } = sections;
  const errors = context.errors;
  return html`<fieldset>
      <legend>${msg("Banner")}</legend>
      ${textareaField({
        name: "header.text",
        label: msg("Banner text"),
        rows: 3,
        value: header.text ?? "",
        error: errors["header.text"],
      })}
      ${check(
        context,
        "header.isRawHtml",
        msg("The text is HTML"),
        header.isRawHtml,
        msg("Links and formatting are kept; scripts and styles are removed before display."),
      )}
      ${button(context, "primary", header)} ${button(context, "secondary", header)}
      ${text(context, "header.backgroundImageUrl", msg("Image"), header.backgroundImageUrl, {
        type: "url",
        hint: msg("An https address of the banner's image, or empty for none."),
      })}
      ${text(
        context,
        "header.mobileBackgroundImageUrl",
        msg("Image on phones"),
        header.mobileBackgroundImageUrl,
        { type: "url", hint: msg("Empty: the same image.") },
      )}
      ${selectField({
        name: "header.imageFit",
        label: msg("Image size"),
        value: header.imageFit,
        options: [
          { value: "cover", label: msg("Cropped to the banner's height") },
          { value: "ratio", label: msg("Whole, in its own proportions") },
        ],
        error: errors["header.imageFit"],
      })}
      ${selectField({
        name: "header.mobileLayout",
        label: msg("Layout on phones"),
        value: header.mobileLayout,
        options: [
          { value: "overlay", label: msg("Text over the image") },
          { value: "stacked", label: msg("Text under the image") },
        ],
        error: errors["header.mobileLayout"],
      })}
      ${selectField({
        name: "header.contentPosition",
        label: msg("Text position"),
        value: header.contentPosition,
        options: [
          { value: "left", label: msg("Left") },
          { value: "center", label: msg("Centre") },
          { value: "right", label: msg("Right") },
        ],
        error: errors["header.contentPosition"],
      })}
      ${check(context, "header.contentCard", msg("Text on an opaque card"), header.contentCard)}
      ${colour(
        context,
        "header.backgroundColor",
        msg("Background colour"),
        header.backgroundColor,
        BRANDING_HINT(),
        context.store.brandingColor,
      )}
      ${colour(
        context,
        "header.textColor",
        msg("Text colour"),
        header.textColor,
        THEME_TEXT_HINT(),
        "#000000",
      )}
    </fieldset>
    <fieldset>
      <legend>${msg("How to earn")}</legend>
      ${sectionToggle(context, "howToEarn", howToEarn.enabled)}
      ${text(context, "sections.howToEarn.title", msg("Title"), howToEarn.title)}
      ${waysToEarn(context, "howToEarn", howToEarn.items)}
    </fieldset>
    <fieldset>
      <legend>${msg("Rewards")}</legend>
      ${sectionToggle(context, "rewards", rewards.enabled)}
      ${text(context, "sections.rewards.title", msg("Title"), rewards.title)}
      ${text(
        context,
        "sections.rewards.emptyText",
        msg("Text without rewards"),
        rewards.emptyText,
        {
          hint: msg("Shown when the store has no reward to list."),
        },
      )}
      ${check(
        context,
        "sections.rewards.confirmClaims",
        CONFIRM_LABEL(),
        rewards.confirmClaims,
        CONFIRM_HINT(),
      )}
    </fieldset>
    <fieldset>
      <legend>${msg("The customer's points")}</legend>
      ${sectionToggle(context, "history", history.enabled)}
      ${text(context, "sections.history.title", msg("Title"), history.title)}
      ${text(
        context,
        "sections.history.signedOutText",
        msg("Invitation to sign in"),
        history.signedOutText,
        { hint: msg("Shown to visitors who are not signed in.") },
      )}
      ${text(context, "sections.history.loginUrl", msg("Sign-in page"), history.loginUrl, {
        type: "url",
        hint: URL_HINT(),
      })}
    </fieldset>
    <fieldset>
      <legend>${msg("FAQ")}</legend>
      ${sectionToggle(context, "faq", faq.enabled)}
      ${text(context, "sections.faq.title", msg("Title"), faq.title)}
      ${items(
        context,
        "faq",
        faq.items.length,
        (index) => {
          const item = faq.items[index]!;
          const path = `sections.faq.items.${index}`;
          return html`${text(context, `${path}.question`, msg("Question"), item.question)}
          ${textareaField({
            name: `${path}.answer`,
            label: msg("Answer"),
            rows: 3,
            value: item.answer,
            error: errors[`${path}.answer`],
          })}`;
        },
        { item: (position) => msg(str`Question ${position}`), add: msg("Add a question") },
      )}
    </fieldset>`;
}
