import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { roundCents } from "./pricing.js";

export interface OrderLine {
  lineId: number;
  productId: number;
  variantId: string;
  name: string;
  categoryIds: number[];
  quantity: number;
  unitPrice: number;
  /** What the customer paid for the line, after the order's code. */
  totalPaid: number;
  /** Units given back so far, all credit notes together. */
  refundedQuantity: number;
}

export interface OrderDiscount {
  code: string;
  /** The reward's name, or "Welcome offer" for an invited friend's code. */
  name: string;
  amount: number;
}

export type OrderStatus = "paid" | "partially_refunded" | "refunded";

export interface Order {
  /** The platform's numeric order id, as the loyalty service knows the order. */
  externalId: number;
  /** What the customer sees: "#1001". */
  reference: string;
  customerId: number;
  email: string;
  placedAt: string;
  lines: OrderLine[];
  /** Delivery as charged. */
  shippingAmount: number;
  /** The code the order used, and what it took off (goods and delivery). */
  discount: OrderDiscount | null;
  status: OrderStatus;
  creditNotes: number;
  /** The cart it was placed from: a second submission of the same cart is the same order. */
  cartId: string;
  /** Whether the loyalty service has the order; if not, why (it can be sent again). */
  registered: boolean;
  registrationError: string | null;
  /** Why the loyalty service could not be told of the last refund, if it could not. */
  refundError: string | null;
}

interface Data {
  /** Signs the session cookies. */
  secret: string;
  nextReference: number;
  lastExternalId: number;
  orders: Order[];
}

/**
 * A customer's id in this store. The demo has no customer table: an email is its customer, and
 * its id is derived from it, so the same email is the same customer whatever happens to this
 * file (the loyalty service keeps their points by this id).
 */
export function customerIdFor(email: string): number {
  return createHash("sha256").update(email.trim().toLowerCase()).digest().readUIntBE(0, 6);
}

/**
 * The store's own data, in one JSON file: what a real store keeps in its platform's database.
 * Every change is written whole to a temporary file renamed over the old one, so a crash never
 * leaves half a file.
 */
export class StoreData {
  private data: Data;

  constructor(private readonly file: string) {
    this.data = this.read() ?? {
      secret: randomBytes(32).toString("hex"),
      nextReference: 1001,
      lastExternalId: 0,
      orders: [],
    };
    this.write();
  }

  get secret(): string {
    return this.data.secret;
  }

  ordersOf(customerId: number): Order[] {
    return this.data.orders.filter((order) => order.customerId === customerId).reverse();
  }

  find(externalId: number): Order | undefined {
    return this.data.orders.find((order) => order.externalId === externalId);
  }

  placedFrom(cartId: string): Order | undefined {
    return this.data.orders.find((order) => order.cartId === cartId);
  }

  /**
   * Records a new order. Its id grows with the clock, so a store started afresh against a
   * loyalty database that already knows earlier orders never reuses one of their ids.
   */
  /** The order that used this code, if one did (codes are single-use, in any case). */
  orderUsing(code: string): Order | undefined {
    const wanted = code.toUpperCase();
    return this.data.orders.find((order) => order.discount?.code.toUpperCase() === wanted);
  }

  place(
    order: Pick<
      Order,
      "customerId" | "email" | "placedAt" | "lines" | "shippingAmount" | "discount" | "cartId"
    >,
  ): Order {
    const externalId = Math.max(this.data.lastExternalId + 1, Date.now());
    const placed: Order = {
      ...order,
      externalId,
      reference: `#${this.data.nextReference}`,
      status: "paid",
      creditNotes: 0,
      registered: false,
      registrationError: null,
      refundError: null,
    };
    this.data.lastExternalId = externalId;
    this.data.nextReference += 1;
    this.data.orders.push(placed);
    this.write();
    return placed;
  }

  save(order: Order): void {
    const index = this.data.orders.findIndex((known) => known.externalId === order.externalId);
    this.data.orders[index] = order;
    this.write();
  }

  private read(): Data | undefined {
    try {
      const data = JSON.parse(readFileSync(this.file, "utf8")) as Data;
      // Orders kept before the store took codes have no delivery, code or paid amounts.
      data.orders = data.orders.map((order) => ({
        ...order,
        shippingAmount: order.shippingAmount ?? 0,
        discount: order.discount ?? null,
        lines: order.lines.map((line) => ({
          ...line,
          totalPaid: line.totalPaid ?? roundCents(line.unitPrice * line.quantity),
        })),
      }));
      return data;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  private write(): void {
    mkdirSync(path.dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(this.data, null, 2), { mode: 0o600 });
    renameSync(temporary, this.file);
  }
}
