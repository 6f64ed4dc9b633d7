import { msg } from "@lit/localize";

/**
 * The screens of a store, under `/back-office/stores/:storeId/`. This table is the one place
 * a screen is declared: the router, the navigation and the tests read it.
 *
 * Each screen is its own module, loaded on first visit (a chunk of its own in the build),
 * and an element extending StoreScreen (src/app/screen.ts).
 */
export interface StoreScreenRoute {
  /** The path after `/back-office/stores/:storeId/`, in URLPattern syntax (`customers/:externalId`). */
  path: string;
  /** The screen's element, defined by its module. */
  tag: string;
  /** The navigation entry it belongs to: its own path, or its list's for a detail screen. */
  section: string;
  /** Its entry in the navigation, for the screens that have one. */
  navLabel?: () => string;
  load: () => Promise<unknown>;
}

export const STORE_SCREENS: readonly StoreScreenRoute[] = [
  {
    path: "overview",
    tag: "bo-overview-screen",
    section: "overview",
    navLabel: () => msg("Overview"),
    load: () => import("../screens/overview-screen.js"),
  },
  {
    path: "programme",
    tag: "bo-programme-screen",
    section: "programme",
    navLabel: () => msg("Programme"),
    load: () => import("../screens/programme-screen.js"),
  },
  {
    path: "rewards",
    tag: "bo-rewards-screen",
    section: "rewards",
    navLabel: () => msg("Rewards"),
    load: () => import("../screens/rewards-screen.js"),
  },
  {
    path: "widgets",
    tag: "bo-widgets-screen",
    section: "widgets",
    navLabel: () => msg("Widgets"),
    load: () => import("../screens/widgets-screen.js"),
  },
  {
    path: "customers",
    tag: "bo-customers-screen",
    section: "customers",
    navLabel: () => msg("Customers"),
    load: () => import("../screens/customers-screen.js"),
  },
  {
    path: "customers/:externalId",
    tag: "bo-customer-screen",
    section: "customers",
    load: () => import("../screens/customer-screen.js"),
  },
  {
    path: "integrations",
    tag: "bo-integrations-screen",
    section: "integrations",
    navLabel: () => msg("Integrations"),
    load: () => import("../screens/integrations-screen.js"),
  },
];
