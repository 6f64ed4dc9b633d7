import type {
  CartConfig,
  CreateClubRequest,
  CreateRewardRequest,
  CreateRuleRequest,
  LauncherConfig,
  ProductPointsConfig,
  ProgramPresentationConfig,
  ReferralProgramInput,
} from "@loyalty/shared-types";
import type pg from "pg";
import { withTransaction } from "../../db/pool.js";
import { AppError } from "../../errors.js";
import type { ClubsService } from "../points/clubs.service.js";
import type { RulesService } from "../points/rules.service.js";
import type { ReferralsService } from "../referrals/referrals.service.js";
import type { RewardsAdminService } from "../rewards/rewards.admin.service.js";
import { keyId, type ApiKeysService } from "../stores/api-keys.service.js";
import type { StoresService } from "../stores/stores.service.js";
import type { StoreRow } from "../stores/stores.repository.js";
import { defaultWidgetConfig } from "../widgets/widgets.defaults.js";
import type { WidgetsService } from "../widgets/widgets.service.js";

export const DEMO_DOMAIN = "http://localhost:4000";

const RULES: CreateRuleRequest[] = [
  { kind: "default", targetId: null, name: "1 point per euro", rate: 1, pointsPerItem: 0 },
  { kind: "category", targetId: 10, name: "Coffee: 2 points per euro", rate: 2, pointsPerItem: 0 },
  { kind: "category", targetId: 20, name: "Tea: 3 points per euro", rate: 3, pointsPerItem: 0 },
  {
    kind: "product",
    targetId: 1001,
    name: "Espresso machine: 50 points",
    rate: 0,
    pointsPerItem: 50,
  },
];

const CLUBS: CreateClubRequest[] = [
  { name: "Bronze", threshold: 0, multiplier: 1 },
  { name: "Silver", threshold: 500, multiplier: 1.25 },
  { name: "Gold", threshold: 2000, multiplier: 1.5 },
];

const REWARDS: CreateRewardRequest[] = [
  {
    name: "Free shipping",
    description: "Free delivery on your next order.",
    triggerValue: 300,
    voucher: {
      kind: "free_shipping",
      value: null,
      currency: null,
      minimumOrderAmount: 20,
      validityDays: 30,
      usageLimit: null,
    },
  },
  {
    name: "€5 off",
    description: "€5 off an order of €30 or more.",
    triggerValue: 500,
    voucher: {
      kind: "fixed_amount",
      value: 5,
      currency: "EUR",
      minimumOrderAmount: 30,
      validityDays: 60,
      usageLimit: null,
    },
  },
  {
    name: "10% off",
    description: "10% off your next order.",
    triggerValue: 900,
    voucher: {
      kind: "percentage",
      value: 10,
      currency: null,
      minimumOrderAmount: null,
      validityDays: 60,
      usageLimit: 1000,
    },
  },
];

// The links below lead to the demo store's pages (examples/express-storefront), wherever it runs.
const referralProgram = (domain: string): ReferralProgramInput => ({
  referrerBonus: 200,
  refereeVoucher: {
    kind: "fixed_amount",
    value: 10,
    currency: "EUR",
    minimumOrderAmount: 40,
    validityDays: 30,
  },
  landingUrl: `${domain}/welcome`,
});

const BRAND = "#6b3fa0";

// The widgets as a store would set them: the defaults, with the demo's own words and colour.
const PRODUCT_POINTS: ProductPointsConfig = {
  ...defaultWidgetConfig("product-points", "en"),
  accentColor: BRAND,
};

const cart = (domain: string): CartConfig => ({
  ...defaultWidgetConfig("cart", "en"),
  earnTemplate: "This cart earns you {points} points",
  claimButtonText: "Get my code",
  loginUrl: `${domain}/account`,
  accentColor: BRAND,
});

const launcher = (domain: string): LauncherConfig => ({
  ...defaultWidgetConfig("launcher", "en"),
  title: "The Coffee Club",
  visitorText:
    "Join the Coffee Club: 1 point per euro, 2 on coffee, 3 on tea, and treats to spend them on.",
  signUpUrl: `${domain}/account/register`,
  loginUrl: `${domain}/account`,
  waysToEarn: [
    { icon: "order", title: "Shop", text: "1 point per euro, 2 on coffee, 3 on tea." },
    { icon: "referral", title: "Refer a friend", text: "Invite a friend and earn a bonus." },
    { icon: "club", title: "Climb the clubs", text: "Silver and Gold earn 25% and 50% more." },
  ],
  accentColor: BRAND,
});

const presentation = (domain: string): ProgramPresentationConfig => ({
  header: {
    ...defaultWidgetConfig("program-presentation", "en").header,
    contentPosition: "left",
    contentCard: true,
    textColor: "#1f1a24", // on the white content card
    text: "<h2>The Coffee Club</h2><p>Every euro you spend brings you closer to a treat.</p>",
    isRawHtml: true,
  },
  sections: {
    howToEarn: {
      enabled: true,
      title: "How to earn points",
      items: [
        { icon: "order", title: "Shop", text: "1 point per euro, 2 on coffee, 3 on tea." },
        { icon: "referral", title: "Refer a friend", text: "Invite a friend and earn a bonus." },
        { icon: "club", title: "Climb the clubs", text: "Silver and Gold earn 25% and 50% more." },
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
      loginUrl: `${domain}/account`,
    },
    faq: {
      enabled: true,
      title: "Questions",
      items: [
        {
          question: "When are my points credited?",
          answer: "As soon as your order is registered, usually within seconds.",
        },
        {
          question: "What happens if I return an item?",
          answer: "The points it earned are deducted.",
        },
      ],
    },
  },
});

export interface DemoResult {
  store: StoreRow;
  apiKey: string;
  keyId: string;
}

/**
 * Loads a demo store (sandbox platform) with attribution rules, clubs, rewards, a referral
 * programme and the three widget configurations, and issues an API key for it: all in one
 * transaction.
 */
export class DemoService {
  constructor(
    private readonly pool: pg.Pool,
    private readonly services: {
      stores: StoresService;
      apiKeys: ApiKeysService;
      rules: RulesService;
      clubs: ClubsService;
      rewardsAdmin: RewardsAdminService;
      widgets: WidgetsService;
      referrals: ReferralsService;
    },
  ) {}

  async load(domain: string = DEMO_DOMAIN): Promise<DemoResult> {
    const { stores, apiKeys, rules, clubs, rewardsAdmin, widgets, referrals } = this.services;
    if (await stores.findByDomain(domain)) {
      throw new AppError(
        "validation-failed",
        `A store with domain ${domain} already exists; create a key for it with: loyalty key create --store <reference>.`,
      );
    }
    return withTransaction(this.pool, async (client) => {
      const store = await stores.create(
        {
          domain,
          name: "The Coffee Shop (demo)",
          language: "en",
          currency: "EUR",
          brandingColor: BRAND,
        },
        client,
      );
      for (const rule of RULES) await rules.create(store.id, rule, client);
      for (const club of CLUBS) await clubs.create(store.id, club, client);
      for (const reward of REWARDS) await rewardsAdmin.create(store.id, reward, client);
      await widgets.save(store.id, "product-points", PRODUCT_POINTS, client);
      await widgets.save(store.id, "cart", cart(store.domain), client);
      await widgets.save(store.id, "program-presentation", presentation(store.domain), client);
      await widgets.save(store.id, "launcher", launcher(store.domain), client);
      await referrals.saveProgram(store.id, referralProgram(store.domain), client);
      const { key, row } = await apiKeys.create(store.reference, "demo", client);
      return { store, apiKey: key, keyId: keyId(row.prefix) };
    });
  }
}
