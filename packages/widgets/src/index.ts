/**
 * `@loyalty/widgets` for bundler users: importing it registers the four elements. Import one
 * widget alone with `@loyalty/widgets/product-points`, `/cart-widget`, `/program-presentation`
 * or `/launcher`.
 */
export { configure } from "./core/element.js";
export { API_REVISION, clearCache } from "./core/api.js";
export type { RewardClaimedDetail } from "./core/claim-event.js";
export { translationChain } from "./core/languages.js";
export { LoyaltyProductPoints } from "./product-points/product-points.js";
export { LoyaltyCartWidget } from "./cart-widget/cart-widget.js";
export { LoyaltyProgramPresentation } from "./program-presentation/program-presentation.js";
export { LoyaltyLauncher } from "./launcher/launcher.js";
