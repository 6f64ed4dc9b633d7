import type {
  CartConfig,
  LauncherConfig,
  ProductPointsConfig,
  ProgramPresentationConfig,
  WidgetKind,
} from "@loyalty/shared-types";

export interface WidgetConfigs {
  cart: CartConfig;
  "product-points": ProductPointsConfig;
  "program-presentation": ProgramPresentationConfig;
  launcher: LauncherConfig;
}

/**
 * What a widget shows until the back-office configures it, in the store's default language:
 * a store that pasted the script tag sees a working widget on day one. Colours are left unset
 * ("") so that the widgets paint with the store's branding colour, or their own readable theme
 * where the store has none.
 */
const DEFAULTS: Record<"en" | "fr", WidgetConfigs> = {
  en: {
    cart: {
      enabled: true,
      title: "Loyalty points",
      earnTemplate: "This order earns you {points} points",
      showBalance: true,
      balanceTemplate: "You have {points} points",
      showRewards: true,
      claimButtonText: "Use my points",
      confirmClaims: true,
      signedOutText: "Sign in to use your points",
      accentColor: "",
    },
    "product-points": {
      enabled: true,
      template: "Earn {points} points with this product",
      hideWhenZero: true,
      showIcon: true,
      textColor: "",
      accentColor: "",
    },
    "program-presentation": {
      header: {
        backgroundImageUrl: "",
        mobileBackgroundImageUrl: "",
        imageFit: "cover",
        mobileLayout: "stacked",
        contentPosition: "center",
        contentCard: false,
        backgroundColor: "",
        textColor: "",
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
          items: [{ icon: "order", title: "Place an order", text: "Every order earns points." }],
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
        },
        faq: { enabled: false, title: "Questions", items: [] },
      },
    },
    launcher: {
      enabled: true,
      label: "Rewards",
      position: "bottom-right",
      title: "Our rewards programme",
      visitorText:
        "Join our rewards programme: earn points on every order and spend them on rewards.",
      waysToEarn: [{ icon: "order", title: "Place an order", text: "Every order earns points." }],
      showRewards: true,
      confirmClaims: true,
      showReferral: true,
      accentColor: "",
    },
  },
  fr: {
    cart: {
      enabled: true,
      title: "Points de fidélité",
      earnTemplate: "Cette commande vous rapporte {points} points",
      showBalance: true,
      balanceTemplate: "Vous avez {points} points",
      showRewards: true,
      claimButtonText: "Utiliser mes points",
      confirmClaims: true,
      signedOutText: "Connectez-vous pour utiliser vos points",
      accentColor: "",
    },
    "product-points": {
      enabled: true,
      template: "Gagnez {points} points avec ce produit",
      hideWhenZero: true,
      showIcon: true,
      textColor: "",
      accentColor: "",
    },
    "program-presentation": {
      header: {
        backgroundImageUrl: "",
        mobileBackgroundImageUrl: "",
        imageFit: "cover",
        mobileLayout: "stacked",
        contentPosition: "center",
        contentCard: false,
        backgroundColor: "",
        textColor: "",
        primaryButtonText: "Comment gagner des points",
        primaryButtonAction: "scroll-points",
        primaryButtonUrl: "",
        secondaryButtonText: "Voir les récompenses",
        secondaryButtonAction: "scroll-redeem",
        secondaryButtonUrl: "",
        text: "Gagnez des points à chaque commande et échangez-les contre des récompenses.",
        isRawHtml: false,
      },
      sections: {
        howToEarn: {
          enabled: true,
          title: "Comment gagner des points",
          items: [
            {
              icon: "order",
              title: "Passez commande",
              text: "Chaque commande vous rapporte des points.",
            },
          ],
        },
        rewards: {
          enabled: true,
          title: "Récompenses",
          emptyText: "Pas encore de récompense : revenez bientôt.",
          confirmClaims: true,
        },
        history: {
          enabled: true,
          title: "Vos points",
          signedOutText: "Connectez-vous pour voir vos points.",
        },
        faq: { enabled: false, title: "Questions", items: [] },
      },
    },
    launcher: {
      enabled: true,
      label: "Récompenses",
      position: "bottom-right",
      title: "Notre programme de fidélité",
      visitorText:
        "Rejoignez notre programme de fidélité : gagnez des points à chaque commande et échangez-les contre des récompenses.",
      waysToEarn: [
        {
          icon: "order",
          title: "Passez commande",
          text: "Chaque commande vous rapporte des points.",
        },
      ],
      showRewards: true,
      confirmClaims: true,
      showReferral: true,
      accentColor: "",
    },
  },
};

/** The default configuration of a widget in a store's language (`fr-CA` reads French). */
export function defaultWidgetConfig<K extends WidgetKind>(
  kind: K,
  language: string,
): WidgetConfigs[K] {
  return (language.slice(0, 2) === "fr" ? DEFAULTS.fr : DEFAULTS.en)[kind];
}
