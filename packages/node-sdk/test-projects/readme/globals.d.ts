// What the README's snippets take for granted around them: an Express app, a configured client,
// and the application's own helpers and data. Everything the snippets use of the SDK and of
// Express is checked against the real declarations.
import type expressModule from "express";
import type {
  LoyaltyClient,
  LoyaltyClientOptions,
  OrderCustomer,
  OrderLine,
} from "@loyalty/node-sdk";

declare global {
  const express: typeof expressModule;
  const app: expressModule.Express;
  const loyalty: LoyaltyClient;
  const options: LoyaltyClientOptions;
  const secret: string;
  const customer: OrderCustomer;
  const currency: string;
  const lines: OrderLine[];
  const log: { error(details: object): void };
  function showMessage(reason: string): void;
  function showCode(code: string, expiresAt: string | null): void;
  function alreadyHandled(eventId: string): boolean;
  function notify(customerId: number, points: number): void;

  /** The fields the hooks read of a platform's order (Shopify-like, as the README shows). */
  interface PlatformOrder {
    id: number;
    number: string;
    created_at: string;
    currency: string;
    customer: { id: number; email: string };
    fully_refunded: boolean;
    discount_codes: { code: string }[];
    line_items: {
      id: number;
      product_id: number;
      category_ids: number[];
      quantity: number;
      price: number;
      total: number;
      refunded_quantity: number;
      refunded_total: number;
    }[];
  }
  interface PlatformCreditNote {
    id: string;
  }
}
