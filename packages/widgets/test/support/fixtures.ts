import {
  cartWidgetResponseSchema,
  customerCodesResponseSchema,
  launcherWidgetResponseSchema,
  customerHistoryResponseV2Schema,
  productPointsWidgetResponseSchema,
  programPresentationWidgetResponseSchema,
  rewardListResponseSchema,
  type CartConfigInput,
  type CartWidgetResponse,
  type CustomerCodesResponse,
  type LauncherConfigInput,
  type LauncherWidgetResponse,
  type CustomerHistoryResponseV2,
  type ProductPointsWidgetResponse,
  type ProgramPresentationConfigInput,
  type ProgramPresentationWidgetResponse,
  type RewardListResponse,
} from "@loyalty/shared-types";

/** The mocked API and store. Every fixture is parsed with the contract's schema. */
export const API = "https://api.loyalty.test";
export const DOMAIN = "https://shop.example";
export const CUSTOMER = { id: "42", hash: "ab".repeat(64) };

const store = { domain: DOMAIN, language: "en", currency: "EUR", brandingColor: "#6b3fa0" };

export const productPointsResponse = (
  config: Partial<ProductPointsWidgetResponse["config"]> = {},
  storeChanges: Partial<typeof store> = {},
): ProductPointsWidgetResponse =>
  productPointsWidgetResponseSchema.parse({
    store: { ...store, ...storeChanges },
    config: {
      enabled: true,
      template: "Earn {points} points with this product",
      hideWhenZero: false,
      showIcon: true,
      textColor: "",
      accentColor: "#0b6e4f",
      ...config,
    },
  });

export const cartResponse = (
  config: Partial<CartConfigInput> = {},
  storeChanges: Partial<typeof store> = {},
): CartWidgetResponse =>
  cartWidgetResponseSchema.parse({
    store: { ...store, ...storeChanges },
    config: {
      enabled: true,
      title: "Loyalty points",
      earnTemplate: "This cart earns you {points} points",
      showBalance: true,
      balanceTemplate: "You have {points} points",
      showRewards: true,
      claimButtonText: "Get my code",
      signedOutText: "Sign in to use your points.",
      loginUrl: "https://shop.example/account",
      accentColor: "",
      ...config,
    },
  });

type Presentation = ProgramPresentationConfigInput;

export const presentationResponse = (
  header: Partial<Presentation["header"]> = {},
  sections: Partial<Presentation["sections"]> = {},
  storeChanges: Partial<typeof store> = {},
): ProgramPresentationWidgetResponse =>
  programPresentationWidgetResponseSchema.parse({
    store: { ...store, ...storeChanges },
    config: {
      header: {
        backgroundImageUrl: "https://cdn.shop.example/banner.png",
        mobileBackgroundImageUrl: "https://cdn.shop.example/banner-mobile.png",
        imageFit: "cover",
        mobileLayout: "overlay",
        contentPosition: "center",
        contentCard: false,
        backgroundColor: "#123456",
        textColor: "#ffffff",
        primaryButtonText: "How to earn",
        primaryButtonAction: "scroll-points",
        primaryButtonUrl: "",
        secondaryButtonText: "Our rewards",
        secondaryButtonAction: "scroll-redeem",
        secondaryButtonUrl: "",
        text: "Join the club and earn points on every order.",
        isRawHtml: false,
        ...header,
      },
      sections: {
        howToEarn: {
          enabled: true,
          title: "How to earn points",
          items: [
            { icon: "order", title: "Shop", text: "1 point per euro spent." },
            { icon: "referral", title: "Refer a friend", text: "200 points per friend." },
          ],
        },
        rewards: { enabled: true, title: "Rewards", emptyText: "No reward yet." },
        history: {
          enabled: true,
          title: "Your points",
          signedOutText: "Sign in to see your points.",
          loginUrl: "https://shop.example/account",
        },
        faq: {
          enabled: true,
          title: "Questions",
          items: [{ question: "Do points expire?", answer: "After 12 months without an order." }],
        },
        ...sections,
      },
    },
  });

const voucher = {
  version: 1,
  kind: "fixed_amount",
  value: 5,
  currency: "EUR",
  minimumOrderAmount: null,
  validityDays: 30,
  usageLimit: null,
} as const;

export const rewards: RewardListResponse = rewardListResponseSchema.parse([
  {
    id: 1,
    name: "Free shipping",
    description: "Free delivery on your next order.",
    imageUrl: null,
    triggerValue: 300,
    voucher: { ...voucher, kind: "free_shipping", value: null, currency: null },
  },
  {
    id: 2,
    name: "€5 off",
    description: "€5 off your next order.",
    imageUrl: null,
    triggerValue: 500,
    voucher,
  },
  {
    id: 3,
    name: "10% off",
    description: null,
    imageUrl: null,
    triggerValue: 900,
    voucher: { ...voucher, kind: "percentage", value: 10, currency: null },
  },
]);

/** The widgets read the history at revision 2026-08-26: orders by id and store reference. */
export const history = (
  changes: Partial<CustomerHistoryResponseV2> = {},
): CustomerHistoryResponseV2 => {
  // Without a pending period (the default) the customer can spend their whole balance.
  const balance = changes.balance ?? 620;
  const pendingPoints = changes.pendingPoints ?? 0;
  return customerHistoryResponseV2Schema.parse({
    externalId: 42,
    balance,
    availablePoints: balance - pendingPoints,
    pendingPoints,
    negativeBalance: null,
    nextExpiry: null,
    earnedLast12Months: 820,
    club: { id: 2, name: "Silver", threshold: 500, multiplier: 1.25 },
    nextClub: { id: 3, name: "Gold", threshold: 2000, multiplier: 1.5, pointsToReach: 1180 },
    clubQualification: {
      basis: "points-earned",
      period: "rolling-12-months",
      downgrade: "immediately",
      figure: 820,
      periodStart: "2025-11-26T10:00:00.000Z",
      keptUntil: null,
    },
    nextCursor: null,
    transactions: [
      {
        id: 11,
        kind: "earn",
        points: 120,
        balanceAfter: 620,
        rewardId: null,
        voucherCode: null,
        referralId: null,
        activity: null,
        note: null,
        createdAt: "2026-11-02T10:00:00.000Z",
        pendingPoints: 0,
        availableAt: null,
        pending: false,
        order: { externalId: 1002, externalReference: "#1002" },
      },
      {
        id: 10,
        kind: "earn",
        points: 500,
        balanceAfter: 500,
        rewardId: null,
        voucherCode: null,
        referralId: null,
        activity: null,
        note: null,
        createdAt: "2026-10-01T10:00:00.000Z",
        pendingPoints: 0,
        availableAt: null,
        pending: false,
        order: { externalId: 1001, externalReference: null },
      },
    ],
    ...changes,
  });
};

export const launcherResponse = (
  config: Partial<LauncherConfigInput> = {},
  storeChanges: Partial<typeof store> = {},
  referral: LauncherWidgetResponse["referral"] | undefined = undefined,
): LauncherWidgetResponse =>
  launcherWidgetResponseSchema.parse({
    store: { ...store, ...storeChanges },
    config: {
      enabled: true,
      label: "Rewards",
      position: "bottom-right",
      title: "Shop rewards",
      visitorText: "Join Shop rewards: points on every order.",
      signUpUrl: "https://shop.example/account/register",
      loginUrl: "https://shop.example/account",
      waysToEarn: [
        { icon: "order", title: "Shop", text: "1 point per euro spent." },
        { icon: "referral", title: "Refer a friend", text: "200 points per friend." },
      ],
      showRewards: true,
      showReferral: true,
      accentColor: "#0b6e4f",
      ...config,
    },
    referral:
      referral === undefined
        ? {
            referrerBonus: 200,
            refereeVoucher: {
              kind: "fixed_amount",
              value: 10,
              currency: "EUR",
              minimumOrderAmount: 40,
              validityDays: 30,
            },
            landingUrl: "https://shop.example/welcome",
          }
        : referral,
  });

/** The customer's usable codes: one from a claim of €5 off, valid until the end of the year. */
export const codes = (changes: Partial<CustomerCodesResponse> = {}): CustomerCodesResponse =>
  customerCodesResponseSchema.parse({
    codes: [
      {
        code: "LOYAL-OLD5",
        rewardId: 2,
        rewardName: "€5 off",
        pointsSpent: 500,
        claimedAt: "2026-11-01T10:00:00.000Z",
        expiresAt: "2026-12-01T10:00:00.000Z",
        voucher: { kind: "fixed_amount", value: 5, currency: "EUR", minimumOrderAmount: 30 },
      },
    ],
    ...changes,
  });
