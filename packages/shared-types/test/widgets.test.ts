import { describe, expect, it } from "vitest";
import {
  buttonActionSchema,
  cartConfigSchema,
  presentationHeaderSchema,
  productPointsConfigSchema,
  programPresentationConfigSchema,
  widgetConfigSchemas,
  widgetKindSchema,
} from "../src/index.js";

const header = {
  backgroundImageUrl: "https://cdn.shop.example/banner.jpg",
  mobileBackgroundImageUrl: "",
  imageFit: "cover",
  mobileLayout: "stacked",
  contentPosition: "left",
  contentCard: true,
  backgroundColor: "#1a73e8",
  textColor: "rgb(255 255 255)",
  primaryButtonText: "See my points",
  primaryButtonAction: "scroll-points",
  primaryButtonUrl: "",
};

function headerIssues(input: unknown): { path: string; message: string }[] {
  const result = presentationHeaderSchema.safeParse(input);
  if (result.success) throw new Error("expected the header to be rejected");
  return result.error.issues.map((issue) => ({
    path: issue.path.join("."),
    message: issue.message,
  }));
}

describe("programme presentation header", () => {
  it("parses the spec's header", () => {
    expect(presentationHeaderSchema.parse(header)).toEqual(header);
  });

  it("accepts the header without its optional desktop image, secondary button and text", () => {
    const { backgroundImageUrl: _unused, ...withoutDesktopImage } = header;
    expect(presentationHeaderSchema.safeParse(withoutDesktopImage).success).toBe(true);
  });

  it.each([
    "mobileBackgroundImageUrl",
    "imageFit",
    "mobileLayout",
    "contentPosition",
    "contentCard",
    "backgroundColor",
    "textColor",
    "primaryButtonText",
    "primaryButtonAction",
    "primaryButtonUrl",
  ])("requires %s", (field) => {
    const incomplete: Record<string, unknown> = { ...header };
    delete incomplete[field];
    expect(headerIssues(incomplete).map((issue) => issue.path)).toEqual([field]);
  });

  it.each([
    ["imageFit", ["cover", "ratio"], "contain"],
    ["mobileLayout", ["overlay", "stacked"], "hidden"],
    ["contentPosition", ["center", "left", "right"], "top"],
    [
      "primaryButtonAction",
      ["scroll-points", "scroll-redeem", "scroll-history", "scroll-faq"],
      "scroll-rewards",
    ],
  ])("accepts exactly the spec's values of %s", (field, allowed, refused) => {
    for (const value of allowed) {
      expect(presentationHeaderSchema.safeParse({ ...header, [field]: value }).success).toBe(true);
    }
    expect(headerIssues({ ...header, [field]: refused }).map((issue) => issue.path)).toEqual([
      field,
    ]);
  });

  it("offers the five button actions of the spec", () => {
    expect(buttonActionSchema.options).toEqual([
      "scroll-points",
      "scroll-redeem",
      "scroll-history",
      "scroll-faq",
      "url",
    ]);
  });

  it("requires contentCard to be a boolean, not text", () => {
    expect(headerIssues({ ...header, contentCard: "true" }).map((issue) => issue.path)).toEqual([
      "contentCard",
    ]);
  });

  it("needs a non-empty primaryButtonUrl when the primary button opens a URL", () => {
    const issues = headerIssues({ ...header, primaryButtonAction: "url" });
    expect(issues).toEqual([
      { path: "primaryButtonUrl", message: expect.stringContaining("primaryButtonAction is url") },
    ]);
    const withUrl = {
      ...header,
      primaryButtonAction: "url",
      primaryButtonUrl: "https://shop.example/loyalty",
    };
    expect(presentationHeaderSchema.safeParse(withUrl).success).toBe(true);
  });

  it("needs a secondaryButtonUrl when the secondary button opens a URL", () => {
    const secondary = { secondaryButtonText: "FAQ", secondaryButtonAction: "url" };
    for (const secondaryButtonUrl of [undefined, ""]) {
      const issues = headerIssues({ ...header, ...secondary, secondaryButtonUrl });
      expect(issues.map((issue) => issue.path)).toEqual(["secondaryButtonUrl"]);
    }
    const complete = { ...header, ...secondary, secondaryButtonUrl: "https://shop.example/faq" };
    expect(presentationHeaderSchema.safeParse(complete).success).toBe(true);
  });

  it("refuses URLs that are not http(s) and colours that are not colours", () => {
    expect(headerIssues({ ...header, mobileBackgroundImageUrl: "javascript:alert(1)" })).toEqual([
      expect.objectContaining({ path: "mobileBackgroundImageUrl" }),
    ]);
    expect(
      headerIssues({
        ...header,
        primaryButtonAction: "url",
        primaryButtonUrl: "ftp://shop.example",
      }).map((issue) => issue.path),
    ).toEqual(["primaryButtonUrl"]);
    const colours = headerIssues({ ...header, backgroundColor: "blue", textColor: "#12345" });
    expect(colours.map((issue) => issue.path).sort()).toEqual(["backgroundColor", "textColor"]);
  });
});

describe("widget configurations", () => {
  const presentation = {
    header,
    sections: {
      howToEarn: {
        enabled: true,
        title: "How to earn",
        items: [{ icon: "order", title: "Shop", text: "1 point per euro" }],
      },
      rewards: { enabled: true, title: "Rewards", emptyText: "Soon" },
      history: {
        enabled: true,
        title: "My points",
        signedOutText: "Log in to see your points",
        loginUrl: "https://shop.example/login",
      },
      faq: { enabled: false, title: "FAQ", items: [] },
    },
  };

  it("parses a complete programme presentation and checks its header", () => {
    expect(programPresentationConfigSchema.safeParse(presentation).success).toBe(true);
    const broken = { ...presentation, header: { ...header, primaryButtonAction: "url" } };
    const result = programPresentationConfigSchema.safeParse(broken);
    expect(result.error?.issues.map((issue) => issue.path.join("."))).toEqual([
      "header.primaryButtonUrl",
    ]);
  });

  it("refuses an unknown earning icon", () => {
    const howToEarn = {
      ...presentation.sections.howToEarn,
      items: [{ icon: "rocket", title: "Shop", text: "" }],
    };
    const result = programPresentationConfigSchema.safeParse({
      ...presentation,
      sections: { ...presentation.sections, howToEarn },
    });
    expect(result.success).toBe(false);
  });

  it("needs a non-empty template for the product-points and cart widgets", () => {
    const productPoints = {
      enabled: true,
      template: "Earn {points} points",
      hideWhenZero: true,
      showIcon: false,
      textColor: "",
      accentColor: "#ff0",
    };
    expect(productPointsConfigSchema.safeParse(productPoints).success).toBe(true);
    expect(productPointsConfigSchema.safeParse({ ...productPoints, template: "" }).success).toBe(
      false,
    );

    const cart = {
      enabled: true,
      title: "Your points",
      earnTemplate: "This cart earns {points} points",
      showBalance: true,
      balanceTemplate: "You have {points} points",
      showRewards: true,
      claimButtonText: "Use",
      accentColor: "hsl(210 80% 50%)",
    };
    expect(cartConfigSchema.safeParse(cart).success).toBe(true);
    expect(cartConfigSchema.safeParse({ ...cart, earnTemplate: "" }).success).toBe(false);
  });

  it("has a configuration schema for each widget kind", () => {
    expect(Object.keys(widgetConfigSchemas).sort()).toEqual([...widgetKindSchema.options].sort());
    expect(widgetConfigSchemas["program-presentation"]).toBe(programPresentationConfigSchema);
  });
});

describe("programme presentation: buttons scroll to shown sections", () => {
  const SECTIONS = {
    howToEarn: { enabled: true, title: "How to earn", items: [] },
    rewards: { enabled: true, title: "Rewards" },
    history: { enabled: true, title: "My points" },
    faq: { enabled: true, title: "FAQ", items: [{ question: "Why?", answer: "Because." }] },
  };
  type SectionName = keyof typeof SECTIONS;
  const TARGETS: [string, SectionName][] = [
    ["scroll-points", "howToEarn"],
    ["scroll-redeem", "rewards"],
    ["scroll-history", "history"],
    ["scroll-faq", "faq"],
  ];
  const BUTTONS = ["primaryButtonAction", "secondaryButtonAction"] as const;

  /** Sections with only `shown` enabled. */
  function only(...shown: SectionName[]) {
    return Object.fromEntries(
      Object.entries(SECTIONS).map(([name, section]) => [
        name,
        { ...section, enabled: shown.includes(name as SectionName) },
      ]),
    );
  }

  /** The header with `button` set to `action`; the other button opens a URL. */
  function withButton(button: (typeof BUTTONS)[number], action: string) {
    return {
      ...header,
      primaryButtonAction: "url",
      primaryButtonUrl: "https://shop.example/club",
      secondaryButtonText: "More",
      secondaryButtonAction: "url",
      secondaryButtonUrl: "https://shop.example/more",
      [button]: action,
    };
  }

  const issuesOf = (input: unknown) =>
    programPresentationConfigSchema.safeParse(input).error?.issues.map((issue) => ({
      path: issue.path.join("."),
      message: issue.message,
    }));

  describe.each(BUTTONS)("%s", (button) => {
    it.each(TARGETS)("accepts %s while the %s section is shown, alone", (action, section) => {
      const config = { header: withButton(button, action), sections: only(section) };
      expect(programPresentationConfigSchema.safeParse(config).success).toBe(true);
    });

    it.each(TARGETS)("refuses %s while the %s section is hidden", (action, section) => {
      const others = (Object.keys(SECTIONS) as SectionName[]).filter((name) => name !== section);
      const config = { header: withButton(button, action), sections: only(...others) };
      expect(issuesOf(config)).toEqual([
        { path: `header.${button}`, message: expect.stringContaining(section) },
      ]);
    });
  });

  it("lets a button open a URL whatever the sections shown", () => {
    const config = { header: withButton("primaryButtonAction", "url"), sections: only() };
    expect(programPresentationConfigSchema.safeParse(config).success).toBe(true);
  });

  it("needs no section for a secondary button that is not there", () => {
    const config = {
      header: { ...header, primaryButtonAction: "scroll-history" },
      sections: only("history"),
    };
    expect(programPresentationConfigSchema.safeParse(config).success).toBe(true);
  });

  it("names both buttons when both scroll to hidden sections", () => {
    const config = {
      header: {
        ...header,
        primaryButtonAction: "scroll-faq",
        secondaryButtonText: "Rewards",
        secondaryButtonAction: "scroll-redeem",
      },
      sections: only("howToEarn", "history"),
    };
    expect(issuesOf(config)?.map((issue) => issue.path)).toEqual([
      "header.primaryButtonAction",
      "header.secondaryButtonAction",
    ]);
  });
});
