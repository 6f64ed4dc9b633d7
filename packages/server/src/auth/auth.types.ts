import type { StoreRow } from "../modules/stores/stores.repository.js";

/** The store whose credentials a request presented. */
export type AuthenticatedStore = Pick<
  StoreRow,
  "id" | "reference" | "domain" | "language" | "currency"
>;
