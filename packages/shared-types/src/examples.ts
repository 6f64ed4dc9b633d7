import type { z } from "zod";
import type { ADMIN_OPERATIONS } from "./admin-operations.js";
import type { AdminReward, AdminStore, ApiKey, AttributionRule, Club } from "./admin.js";
import type { OPERATIONS } from "./operations.js";
import type { Reward, Voucher, VoucherTerms } from "./rewards.js";
import type {
  CartConfig,
  LauncherConfig,
  ProductPointsConfig,
  ProgramPresentationConfig,
  widgetStoreSchema,
} from "./widgets.js";

/*
 * One realistic request and response per operation, for the OpenAPI document and the
 * documentation. The types make them follow the schemas at compile time, and a test parses each
 * one with its operation's schema, so that an example can never show what the API refuses or
 * never sends.
 */

type PerRevision = { "2026-01-01": z.ZodType; "2026-06-18": z.ZodType };

/** A request body as the client writes it (the schema's input), once per revision if it varies. */
type RequestOf<S> = S extends z.ZodType
  ? z.input<S>
  : S extends PerRevision
    ? { [R in keyof S]: z.input<S[R]> }
    : never;

/** A response body as the server sends it (the schema's output), once per revision if it varies. */
type ResponseOf<S> = S extends z.ZodType
  ? z.output<S>
  : S extends PerRevision
    ? { [R in keyof S]: z.output<S[R]> }
    : never;

/** The examples an operation needs: one for each body it takes or answers. */
export type OperationExamples<O> = (O extends { body: infer B }
  ? { request: RequestOf<B> }
  : unknown) &
  (O extends { response: infer R } ? { response: ResponseOf<R> } : unknown) &
  (O extends { refusal: infer F } ? { refusal: ResponseOf<F> } : unknown);

type PublicOperations = typeof OPERATIONS;
type AdminOperations = typeof ADMIN_OPERATIONS;

export type OperationExamplesTable = {
  [K in keyof PublicOperations]: OperationExamples<PublicOperations[K]>;
} & { [K in keyof AdminOperations]: OperationExamples<AdminOperations[K]> };

const DOMAIN = "https://shop.example";
const STORE_ID = 42;
const CUSTOMER_ID = 1001;
const CREATED_AT = "2026-03-02T10:15:00.000Z";
const NOW = "2026-09-14T09:30:00.000Z";

/** HMAC-SHA512 of "1001" keyed `st_Qm7xK2pR9vT4wZ8nB3cY:<the API key of createApiKey>`. */
const CUSTOMER_HASH =
  "9d41400bb9d2360097655ebd3250b368f25d4c9f73cbf1b5820f90afb635fb193b1e01e750c9113602d4d1885588b25f22381714651a6e148e64457b9dab31ef";

/**
 * Values of the query and path parameters, by name, for the document's parameters. Every
 * parameter of every operation has one, and each is accepted by its operation's schema.
 */
export const PARAMETER_EXAMPLES: Record<string, string | number | number[] | string[]> = {
  domain: DOMAIN,
  hash: CUSTOMER_HASH,
  externalId: CUSTOMER_ID,
  product: 301,
  categories: [12, 40],
  price: 89.9,
  items: ["7:17.99", "8:24.5:3|4", ":5"],
  limit: 20,
  cursor: "OTAwMg",
  storeId: STORE_ID,
  keyId: "lk_7f3k9q2m4x",
  ruleId: 7,
  clubId: 2,
  rewardId: 12,
  endpointId: 3,
  deliveryId: 8812,
  from: "2026-08-16",
  to: "2026-09-14",
  quantity: 2,
  query: "jane.doe@",
  status: "failed",
};

const fiveEurosOff: VoucherTerms = {
  kind: "fixed_amount",
  value: 5,
  currency: "EUR",
  minimumOrderAmount: 30,
  validityDays: 90,
};

const tenPercentOff: VoucherTerms = {
  kind: "percentage",
  value: 10,
  currency: null,
  minimumOrderAmount: null,
  validityDays: 30,
};

const currentVoucher: Voucher = { ...fiveEurosOff, version: 2, usageLimit: null };

const rewards: Reward[] = [
  {
    id: 12,
    name: "5 € voucher",
    description: "5 € off an order of 30 € or more",
    imageUrl: "https://shop.example/images/voucher-5.png",
    triggerValue: 500,
    voucher: currentVoucher,
  },
  {
    id: 14,
    name: "Free shipping",
    description: null,
    imageUrl: null,
    triggerValue: 800,
    voucher: {
      kind: "free_shipping",
      value: null,
      currency: null,
      minimumOrderAmount: null,
      validityDays: 60,
      version: 1,
      usageLimit: 500,
    },
  },
];

const order = {
  customer: {
    externalId: CUSTOMER_ID,
    email: "jane.doe@example.com",
    firstName: "Jane",
    lastName: "Doe",
    language: "en",
  },
  currency: "EUR",
  orderedAt: "2026-09-14T09:12:00.000Z",
  lines: [
    {
      lineId: 1,
      productId: 301,
      categoryIds: [12, 40],
      name: "Trail running shoes",
      sku: "TRS-42",
      quantity: 1,
      unitPrice: 89.9,
      totalPaid: 80.91,
    },
    {
      lineId: 2,
      productId: 415,
      categoryIds: [18],
      name: "Merino socks",
      sku: "MS-02",
      quantity: 2,
      unitPrice: 12.5,
    },
  ],
  shippingAmount: 4.9,
  discountAmount: 8.99,
  totalPaid: 110.81,
  discountCodes: ["SPRING10"],
};

const refund = {
  status: "partially_refunded" as const,
  creditNoteId: "CN-2026-0042",
  lines: [{ lineId: 2, quantity: 1, amount: 12.5 }],
  refundedAt: "2026-09-20T15:00:00.000Z",
};

const clubs = {
  silver: { id: 2, name: "Silver", threshold: 1000, multiplier: 1.25 },
  gold: { id: 3, name: "Gold", threshold: 2500, multiplier: 1.5 },
};

const programSettings = {
  pendingDays: 14,
  expiry: { mode: "lifetime" as const, months: 12, warningDays: 30 },
  activities: [
    { kind: "signup", label: "", points: 100, limit: null },
    { kind: "review", label: "", points: 50, limit: { count: 3, period: "month" as const } },
    { kind: "photo_review", label: "Photo review", points: 80, limit: null },
  ],
  clubs: {
    basis: "amount-spent" as const,
    period: "calendar-year" as const,
    downgrade: "end-of-period" as const,
  },
};

/** Where the customer of the examples stands for clubs: the spec's rolling 12 months. */
const clubQualification = {
  basis: "points-earned" as const,
  period: "rolling-12-months" as const,
  downgrade: "immediately" as const,
  figure: 1240,
  periodStart: "2025-04-12T09:30:00.000Z",
  keptUntil: null,
};

const history = {
  externalId: CUSTOMER_ID,
  balance: 640,
  availablePoints: 530,
  pendingPoints: 110,
  negativeBalance: null,
  nextExpiry: { points: 200, expiresAt: "2027-03-01T08:00:00.000Z" },
  earnedLast12Months: 1240,
  club: clubs.silver,
  nextClub: { ...clubs.gold, pointsToReach: 1260 },
  clubQualification,
  nextCursor: "OTAwMg",
};

const redemption = {
  id: 9003,
  kind: "reward_redemption" as const,
  points: -500,
  balanceAfter: 640,
  rewardId: 12,
  voucherCode: "LOYAL-7KQ2-M9XD",
  referralId: null,
  activity: null,
  note: null,
  createdAt: NOW,
  pendingPoints: 0,
  availableAt: null,
  pending: false,
  order: null,
};

const earning = {
  id: 9002,
  kind: "earn" as const,
  points: 110,
  balanceAfter: 1140,
  rewardId: null,
  voucherCode: null,
  referralId: null,
  activity: null,
  note: null,
  createdAt: "2026-09-14T09:12:04.000Z",
  // Held by a 14-day pending period, counted from the order's date.
  pendingPoints: 110,
  availableAt: "2026-09-28T09:00:00.000Z",
  pending: true,
};

const widgetStore: z.output<typeof widgetStoreSchema> = {
  domain: DOMAIN,
  language: "en",
  currency: "EUR",
  brandingColor: "#1a73e8",
};

const cartConfig: CartConfig = {
  enabled: true,
  title: "Trail & Co rewards",
  earnTemplate: "This order earns you {points} points",
  showBalance: true,
  balanceTemplate: "You have {points} points",
  showRewards: true,
  claimButtonText: "Use my points",
  confirmClaims: true,
  signedOutText: "Sign in to use your points",
  loginUrl: "https://shop.example/account/login",
  accentColor: "#0b8043",
};

const productPointsConfig: ProductPointsConfig = {
  enabled: true,
  template: "Earn {points} points with this product",
  hideWhenZero: true,
  showIcon: true,
  textColor: "",
  accentColor: "#0b8043",
};

const presentationConfig: ProgramPresentationConfig = {
  header: {
    backgroundImageUrl: "https://shop.example/images/loyalty-banner.jpg",
    mobileBackgroundImageUrl: "",
    imageFit: "cover",
    mobileLayout: "stacked",
    contentPosition: "left",
    contentCard: true,
    backgroundColor: "",
    textColor: "#ffffff",
    primaryButtonText: "How to earn points",
    primaryButtonAction: "scroll-points",
    primaryButtonUrl: "",
    secondaryButtonText: "See the rewards",
    secondaryButtonAction: "scroll-redeem",
    secondaryButtonUrl: "",
    text: "Earn points with every order and turn them into rewards.",
    isRawHtml: false,
  },
  sections: {
    howToEarn: {
      enabled: true,
      title: "How to earn points",
      items: [
        { icon: "order", title: "Place an order", text: "1 point for every euro spent." },
        { icon: "referral", title: "Invite a friend", text: "200 points when they order." },
      ],
    },
    rewards: {
      enabled: true,
      title: "Rewards",
      emptyText: "No reward yet: come back soon.",
      confirmClaims: true,
    },
    history: {
      enabled: true,
      title: "Your points",
      signedOutText: "Sign in to see your points.",
      loginUrl: "https://shop.example/account/login",
    },
    faq: {
      enabled: true,
      title: "Questions",
      items: [
        {
          question: "When do my points arrive?",
          answer: "A few seconds after your order is confirmed.",
        },
      ],
    },
  },
};

const launcherConfig: LauncherConfig = {
  enabled: true,
  label: "Rewards",
  position: "bottom-right",
  title: "Trail & Co rewards",
  visitorText: "Join Trail & Co rewards: points on every order, and rewards to spend them on.",
  signUpUrl: "https://shop.example/account/register",
  loginUrl: "https://shop.example/account/login",
  waysToEarn: [
    { icon: "order", title: "Place an order", text: "1 point for every euro spent." },
    { icon: "referral", title: "Invite a friend", text: "200 points when they order." },
  ],
  showRewards: true,
  confirmClaims: true,
  showReferral: true,
  accentColor: "#0b8043",
};

const store: AdminStore = {
  id: STORE_ID,
  reference: "st_Qm7xK2pR9vT4wZ8nB3cY",
  domain: DOMAIN,
  name: "Trail & Co",
  language: "en",
  currency: "EUR",
  brandingColor: "#1a73e8",
  platform: "woocommerce",
  createdAt: CREATED_AT,
  updatedAt: CREATED_AT,
};

const apiKey: ApiKey = {
  id: "lk_7f3k9q2m4x",
  label: "Production",
  active: true,
  createdAt: CREATED_AT,
  revokedAt: null,
};

const productRule: AttributionRule = {
  id: 7,
  kind: "product",
  targetId: 301,
  name: "Trail shoes: double points",
  rate: 2,
  pointsPerItem: 0,
  active: true,
  createdAt: CREATED_AT,
  updatedAt: CREATED_AT,
};

const silverClub: Club = { ...clubs.silver, createdAt: CREATED_AT, updatedAt: CREATED_AT };

const adminReward: AdminReward = {
  ...rewards[0]!,
  active: true,
  voucher: { ...currentVoucher, codesIssued: 37, createdAt: "2026-06-01T08:00:00.000Z" },
  createdAt: CREATED_AT,
  updatedAt: "2026-06-01T08:00:00.000Z",
};

const webhookEndpoint = {
  id: 3,
  url: "https://shop.example/webhooks/loyalty",
  events: ["POINTS_EARNED" as const, "REWARD_OBTAINED" as const],
  active: true,
  createdAt: CREATED_AT,
  updatedAt: CREATED_AT,
};

const referralProgram = {
  active: true,
  referrerBonus: 200,
  refereeVoucher: tenPercentOff,
  landingUrl: "https://shop.example/welcome",
};

const adminCustomer = {
  externalId: CUSTOMER_ID,
  email: "jane.doe@example.com",
  firstName: "Jane",
  lastName: "Doe",
  language: "en",
  balance: 640,
  reservedPoints: 0,
  pendingPoints: 110,
  createdAt: "2026-04-11T18:40:00.000Z",
  erasedAt: null,
};

/** The customer with their club standing, as the search and the customer's page report it. */
const adminCustomerSummary = {
  ...adminCustomer,
  earnedLast12Months: 1_240,
  club: { id: 1, name: "Silver", multiplier: 1.2 },
  clubQualification,
};

const adjustment = {
  id: 9004,
  kind: "manual_adjustment" as const,
  points: 150,
  balanceAfter: 790,
  note: "Goodwill gesture: late delivery",
  orderExternalId: null,
  rewardId: null,
  referralId: null,
  activity: null,
  createdAt: NOW,
  pendingPoints: 0,
  availableAt: null,
};

const webhookDelivery = {
  id: 8812,
  eventId: 70211,
  event: "POINTS_EARNED" as const,
  status: "failed" as const,
  attempts: 8,
  lastStatusCode: 500,
  lastError: "The endpoint answered HTTP 500.",
  nextAttemptAt: null,
  deliveredAt: null,
  createdAt: "2026-09-13T07:12:00.000Z",
};

function widgetConfiguration<K extends string, C>(kind: K, config: C) {
  return { kind, isDefault: false, updatedAt: "2026-05-20T14:00:00.000Z", config };
}

/** What a reset answers: the default configuration, never saved. */
function defaultWidgetConfiguration<K extends string, C>(kind: K, config: C) {
  return { kind, isDefault: true, updatedAt: null, config };
}

export const OPERATION_EXAMPLES: OperationExamplesTable = {
  registerOrder: {
    request: {
      "2026-01-01": { externalRef: "5001", ...order },
      "2026-06-18": { externalId: 5001, externalReference: "#5001", ...order },
    },
    response: {
      "2026-01-01": { externalRef: "5001", status: "pending", receivedAt: NOW },
      "2026-06-18": {
        externalId: 5001,
        externalReference: "#5001",
        status: "pending",
        receivedAt: NOW,
      },
    },
  },
  recordActivity: {
    request: {
      activityId: "review-88412",
      kind: "review",
      customer: { externalId: CUSTOMER_ID, email: "jane.doe@example.com" },
      occurredAt: "2026-09-14T09:00:00.000Z",
    },
    response: {
      activityId: "review-88412",
      kind: "review",
      outcome: "credited",
      points: 50,
      balance: 690,
      recordedAt: NOW,
    },
  },
  refundOrder: {
    request: {
      "2026-01-01": { externalRef: "5001", ...refund },
      "2026-06-18": { externalId: 5001, ...refund },
    },
    response: {
      "2026-01-01": { externalRef: "5001", status: "pending", receivedAt: NOW },
      "2026-06-18": { externalId: 5001, status: "pending", receivedAt: NOW },
    },
  },
  calculateProductPoints: { response: { points: 179, type: "product", id: 7 } },
  calculateManyProductPoints: {
    response: {
      items: [
        { product: 7, price: 17.99, categories: [], points: 35, type: "product", id: 31 },
        { product: 8, price: 24.5, categories: [3, 4], points: 49, type: "category", id: 12 },
        { product: null, price: 5, categories: [], points: 5, type: "default", id: 1 },
      ],
    },
  },
  createReferral: {
    request: { email: "sam.lee@example.org", firstName: "Sam", lastName: "Lee", language: "en" },
    response: {
      hash: "OIY5gA8G2XygcdKOZ-kkpozl28cy4RY39k3Y13RGxno",
      status: "pending",
      email: "sam.lee@example.org",
    },
  },
  getCustomerHistory: {
    response: {
      "2026-01-01": {
        ...history,
        transactions: [redemption, { ...earning, order: { externalRef: "5001" } }],
      },
      "2026-06-18": {
        ...history,
        transactions: [
          redemption,
          { ...earning, order: { externalId: 5001, externalReference: "#5001" } },
        ],
      },
    },
  },
  claimReward: {
    request: { rewardId: 12 },
    response: {
      code: "LOYAL-7KQ2-M9XD",
      rewardId: 12,
      pointsSpent: 500,
      balance: 640,
      expiresAt: "2026-12-13T09:30:00.000Z",
      voucher: currentVoucher,
    },
    refusal: { code: null, reason: "insufficient-balance" },
  },
  listCustomerCodes: {
    response: {
      codes: [
        {
          code: "LOYAL-7KQ2-M9XD",
          rewardId: 12,
          rewardName: "5 € voucher",
          pointsSpent: 500,
          claimedAt: NOW,
          expiresAt: "2026-12-13T09:30:00.000Z",
          voucher: { kind: "fixed_amount", value: 5, currency: "EUR", minimumOrderAmount: 30 },
        },
        {
          code: "P4WD-8HNA-T2KE",
          rewardId: 14,
          rewardName: "Free shipping",
          pointsSpent: 800,
          claimedAt: "2026-08-02T18:05:00.000Z",
          expiresAt: "2026-10-01T18:05:00.000Z",
          voucher: { kind: "free_shipping", value: null, currency: null, minimumOrderAmount: null },
        },
      ],
    },
  },
  listRewards: { response: rewards },
  getRefereeCode: {
    request: { referralHash: "OIY5gA8G2XygcdKOZ-kkpozl28cy4RY39k3Y13RGxno" },
    response: {
      code: "WELCOME-4HT8-PQ2Z",
      voucher: tenPercentOff,
      expiresAt: "2026-10-14T09:30:00.000Z",
    },
  },
  getCartWidget: { response: { store: widgetStore, config: cartConfig } },
  getProductPointsWidget: { response: { store: widgetStore, config: productPointsConfig } },
  getProgramPresentationWidget: { response: { store: widgetStore, config: presentationConfig } },
  getLauncherWidget: {
    response: {
      store: widgetStore,
      config: launcherConfig,
      referral: {
        referrerBonus: 200,
        refereeVoucher: tenPercentOff,
        landingUrl: "https://shop.example/welcome",
      },
    },
  },

  createAdminToken: {
    request: { email: "admin@shop.example", password: "correct horse battery staple" },
    response: {
      accessToken:
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIiwic3RvcmVJZCI6NDIsImV4cCI6MTc4OTM3OTkwMH0.Qe0bVhJxR4bCk1uTn2m1ZQ2nE8V3Xo9sJdY7pL0wA6c",
      tokenType: "Bearer",
      expiresIn: 900,
      expiresAt: "2026-09-14T09:45:00.000Z",
      storeId: STORE_ID,
    },
  },
  listStores: { response: [store] },
  createStore: {
    request: {
      domain: DOMAIN,
      name: "Trail & Co",
      language: "en",
      currency: "EUR",
      brandingColor: "#1a73e8",
    },
    response: { ...store, platform: "sandbox" },
  },
  getStore: { response: store },
  updateStore: {
    request: { name: "Trail & Co Outdoor", brandingColor: "#0b8043" },
    response: { ...store, name: "Trail & Co Outdoor", brandingColor: "#0b8043", updatedAt: NOW },
  },
  listApiKeys: {
    response: [
      apiKey,
      {
        id: "lk_2b8n5r1v6c",
        label: "Before rotation",
        active: false,
        createdAt: "2026-01-05T08:00:00.000Z",
        revokedAt: CREATED_AT,
      },
    ],
  },
  createApiKey: {
    request: { label: "Production" },
    response: { ...apiKey, key: "lk_7f3k9q2m4x_UNhY4JhezH9gQYqvDMWrWH9CwlcKiECVqejMrND2VFw" },
  },
  revokeApiKey: { response: { ...apiKey, active: false, revokedAt: NOW } },
  listRules: {
    response: [
      productRule,
      {
        id: 5,
        kind: "category",
        targetId: 40,
        name: "Running: 1.5 points per euro",
        rate: 1.5,
        pointsPerItem: 0,
        active: true,
        createdAt: CREATED_AT,
        updatedAt: CREATED_AT,
      },
      {
        id: 1,
        kind: "default",
        targetId: null,
        name: "1 point per euro",
        rate: 1,
        pointsPerItem: 0,
        active: true,
        createdAt: CREATED_AT,
        updatedAt: CREATED_AT,
      },
    ],
  },
  createRule: {
    request: { kind: "product", targetId: 301, name: "Trail shoes: double points", rate: 2 },
    response: productRule,
  },
  updateRule: {
    request: { rate: 2.5, pointsPerItem: 10 },
    response: { ...productRule, rate: 2.5, pointsPerItem: 10, updatedAt: NOW },
  },
  deleteRule: {},
  listClubs: {
    response: [silverClub, { ...clubs.gold, createdAt: CREATED_AT, updatedAt: CREATED_AT }],
  },
  createClub: {
    request: { name: "Silver", threshold: 1000, multiplier: 1.25 },
    response: silverClub,
  },
  updateClub: {
    request: { threshold: 1200 },
    response: { ...silverClub, threshold: 1200, updatedAt: NOW },
  },
  deleteClub: {},
  listAdminRewards: {
    response: [adminReward, { ...adminReward, id: 15, name: "Retired mug", active: false }],
  },
  createReward: {
    request: {
      name: "5 € voucher",
      description: "5 € off an order of 30 € or more",
      imageUrl: "https://shop.example/images/voucher-5.png",
      triggerValue: 500,
      voucher: { ...fiveEurosOff, usageLimit: null },
    },
    response: {
      ...adminReward,
      voucher: { ...adminReward.voucher, version: 1, codesIssued: 0, createdAt: NOW },
      createdAt: NOW,
      updatedAt: NOW,
    },
  },
  getAdminReward: { response: adminReward },
  updateReward: {
    request: {
      triggerValue: 450,
      voucher: { ...fiveEurosOff, validityDays: 60, usageLimit: 1000 },
    },
    response: {
      ...adminReward,
      triggerValue: 450,
      voucher: {
        ...fiveEurosOff,
        validityDays: 60,
        version: 3,
        usageLimit: 1000,
        codesIssued: 0,
        createdAt: NOW,
      },
      updatedAt: NOW,
    },
  },
  getCartWidgetConfiguration: { response: widgetConfiguration("cart", cartConfig) },
  setCartWidgetConfiguration: {
    request: cartConfig,
    response: { ...widgetConfiguration("cart", cartConfig), updatedAt: NOW },
  },
  resetCartWidgetConfiguration: { response: defaultWidgetConfiguration("cart", cartConfig) },
  getProductPointsWidgetConfiguration: {
    response: widgetConfiguration("product-points", productPointsConfig),
  },
  setProductPointsWidgetConfiguration: {
    request: productPointsConfig,
    response: { ...widgetConfiguration("product-points", productPointsConfig), updatedAt: NOW },
  },
  resetProductPointsWidgetConfiguration: {
    response: defaultWidgetConfiguration("product-points", productPointsConfig),
  },
  getProgramPresentationWidgetConfiguration: {
    response: widgetConfiguration("program-presentation", presentationConfig),
  },
  setProgramPresentationWidgetConfiguration: {
    request: presentationConfig,
    response: {
      ...widgetConfiguration("program-presentation", presentationConfig),
      updatedAt: NOW,
    },
  },
  resetProgramPresentationWidgetConfiguration: {
    response: defaultWidgetConfiguration("program-presentation", presentationConfig),
  },
  getLauncherWidgetConfiguration: { response: widgetConfiguration("launcher", launcherConfig) },
  setLauncherWidgetConfiguration: {
    request: launcherConfig,
    response: { ...widgetConfiguration("launcher", launcherConfig), updatedAt: NOW },
  },
  resetLauncherWidgetConfiguration: {
    response: defaultWidgetConfiguration("launcher", launcherConfig),
  },
  getPlatformConnection: {
    response: {
      platform: "woocommerce",
      url: DOMAIN,
      hasCredentials: true,
      settings: { platform: "woocommerce" },
    },
  },
  setPlatformConnection: {
    request: {
      platform: "woocommerce",
      url: DOMAIN,
      consumerKey: "ck_4f1c0a7e9b2d4c6e8a0b1c2d3e4f5a6b7c8d9e0f",
      consumerSecret: "cs_9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d",
    },
    response: {
      platform: "woocommerce",
      url: DOMAIN,
      hasCredentials: true,
      settings: { platform: "woocommerce" },
    },
  },
  listWebhookEndpoints: { response: [webhookEndpoint] },
  createWebhookEndpoint: {
    request: { url: webhookEndpoint.url, events: webhookEndpoint.events },
    response: { ...webhookEndpoint, secret: "whsec_3vQ8mZ1pK7xR2nT5wY9cB4dF6gH0jL2sA8eU1iO3rW5" },
  },
  deleteWebhookEndpoint: { response: { ...webhookEndpoint, active: false, updatedAt: NOW } },
  getProgramSettings: { response: programSettings },
  setProgramSettings: { request: programSettings, response: programSettings },
  getReferralProgram: { response: referralProgram },
  setReferralProgram: { request: referralProgram, response: referralProgram },
  getProgramOverview: {
    response: {
      period: { from: "2026-09-13", to: "2026-09-14" },
      currency: "EUR",
      members: 1840,
      activeMembers: 412,
      points: {
        earned: 48_210,
        bonuses: 1_200,
        redeemed: 21_500,
        deducted: 930,
        adjusted: 150,
        expired: 0,
      },
      redemptionRate: 0.4351,
      outstandingPoints: 310_420,
      liability: { amount: 3104.2, valuePerPoint: 0.01, rewardId: 12 },
      daily: [
        {
          date: "2026-09-13",
          ordersCredited: 96,
          claims: 21,
          pointsEarned: 24_800,
          pointsRedeemed: 10_500,
        },
        {
          date: "2026-09-14",
          ordersCredited: 88,
          claims: 22,
          pointsEarned: 23_410,
          pointsRedeemed: 11_000,
        },
      ],
      topRewards: [
        { rewardId: 12, name: "5 € voucher", claims: 33, points: 16_500 },
        { rewardId: 14, name: "Free shipping", claims: 10, points: 5_000 },
      ],
    },
  },
  previewProductPoints: {
    response: {
      points: 179,
      type: "product",
      id: 7,
      ruleName: "Espresso machines",
      linePoints: 359,
      clubs: [
        { id: 1, name: "Silver", multiplier: 1.2, linePoints: 430 },
        { id: 2, name: "Gold", multiplier: 1.5, linePoints: 538 },
      ],
    },
  },
  listVoucherVersions: {
    response: [
      { ...adminReward.voucher, codesRemaining: null, current: true },
      {
        ...fiveEurosOff,
        validityDays: 30,
        version: 1,
        usageLimit: 100,
        codesIssued: 100,
        codesRemaining: 0,
        current: false,
        createdAt: CREATED_AT,
      },
    ],
  },
  testPlatformConnection: {
    response: {
      platform: "woocommerce",
      ok: false,
      reason: "platform-credentials-rejected",
      cause: "unauthorized",
      httpStatus: 401,
      message:
        "WooCommerce refused the credentials (HTTP 401): check the consumer key and consumer secret, and that they may read customers and write coupons.",
      durationMs: 182,
    },
  },
  listWebhookDeliveries: {
    response: {
      deliveries: [webhookDelivery],
      nextCursor: "ODgxMQ",
    },
  },
  redeliverWebhook: {
    response: {
      ...webhookDelivery,
      status: "pending",
      nextAttemptAt: NOW,
    },
  },
  searchCustomers: {
    response: {
      customers: [adminCustomerSummary],
      nextCursor: null,
    },
  },
  listCustomerTransactions: {
    response: { transactions: [adjustment], nextCursor: "OTAwNA" },
  },
  getAdminCustomer: { response: adminCustomerSummary },
  adjustCustomerPoints: {
    request: { points: 150, reason: "Goodwill gesture: late delivery" },
    response: { transaction: adjustment, balance: 790 },
  },
  exportCustomer: {
    response: {
      exportedAt: NOW,
      store: { id: STORE_ID, domain: DOMAIN },
      customer: adminCustomer,
      orders: [
        {
          externalId: "5001",
          externalReference: "#5001",
          currency: "EUR",
          orderedAt: "2026-09-14T09:12:00.000Z",
          pointsEarned: 110,
          pointsDeducted: 12,
          refundStatus: "partially_refunded",
          payload: { externalId: 5001, externalReference: "#5001", ...order },
        },
      ],
      transactions: [
        {
          id: 9002,
          kind: "earn",
          points: 110,
          balanceAfter: 1140,
          note: null,
          orderExternalId: "5001",
          rewardId: null,
          referralId: null,
          activity: null,
          createdAt: "2026-09-14T09:12:04.000Z",
          pendingPoints: 110,
          availableAt: "2026-09-28T09:00:00.000Z",
        },
        {
          id: 9003,
          kind: "reward_redemption",
          points: -500,
          balanceAfter: 640,
          note: null,
          orderExternalId: null,
          rewardId: 12,
          referralId: null,
          activity: null,
          createdAt: NOW,
          pendingPoints: 0,
          availableAt: null,
        },
      ],
      claims: [
        {
          rewardId: 12,
          code: "LOYAL-7KQ2-M9XD",
          points: 500,
          status: "confirmed",
          expiresAt: "2026-12-13T09:30:00.000Z",
          createdAt: NOW,
        },
      ],
      referralsMade: [
        {
          id: 31,
          email: "sam.lee@example.org",
          firstName: "Sam",
          lastName: "Lee",
          status: "pending",
          createdAt: "2026-09-10T17:05:00.000Z",
          completedAt: null,
        },
      ],
      referredBy: null,
    },
  },
  eraseCustomer: { response: { externalId: CUSTOMER_ID, erasedAt: NOW, balance: 640 } },
};
