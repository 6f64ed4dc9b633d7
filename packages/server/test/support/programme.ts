import { randomBytes } from "node:crypto";
import {
  customerHistoryResponseV2Schema,
  eventDataSchemas,
  type CustomerHistoryResponseV2,
  type EventData,
  type EventType,
  type ProgramSettingsInput,
} from "@loyalty/shared-types";
import { expect } from "vitest";
import type { AdminSession } from "./admin.js";
import { eventually, type TestApp } from "./app.js";
import { addReward, addRule, hashFor, storeWithKey } from "./fixtures.js";

/**
 * A customer's life in a store, from outside: orders registered and refunded over the API and
 * credited by the workers, the history and claims of the storefront, the events written, and
 * the programme's jobs run through the job queue. For the programme settings' tests.
 */

export const DAY = 86_400_000;
export const CUSTOMER = 42;
const LATEST = { revision: "2026-08-26" };

export type Shop = Awaited<ReturnType<typeof storeWithKey>> & { rewardId: number };

export function programme(app: TestApp, admin: AdminSession) {
  const pool = app.context.pool;

  function post(path: string, body: unknown, headers: Record<string, string> = {}) {
    return fetch(`${app.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...LATEST, ...headers },
      body: JSON.stringify(body),
    });
  }

  const customerQuery = (s: Shop) =>
    new URLSearchParams({
      domain: s.store.domain,
      hash: hashFor(s.store.reference, s.key, CUSTOMER),
    }).toString();

  return {
    /** A store of 1 point per unit of currency, a 100-point reward and these settings. */
    async shop(
      settings: ProgramSettingsInput | undefined,
      store: { language?: string; name?: string } = {},
    ): Promise<Shop> {
      const made = await storeWithKey(
        app,
        `https://shop-${randomBytes(4).toString("hex")}.example`,
        store,
      );
      const created = made.store;
      await addRule(pool, created.id, { kind: "default", rate: 1 });
      const { rewardId } = await addReward(pool, created.id, { triggerValue: 100 });
      if (settings !== undefined) {
        const saved = await admin.request(
          "PUT",
          `/admin/stores/${created.id}/program-settings`,
          settings,
        );
        expect(saved.status).toBe(200);
      }
      return { ...made, rewardId };
    },

    /** Registers an order of `amount` (as many points), without waiting for its processing. */
    async send(s: Shop, externalId: number, amount: number, orderedAt: Date) {
      const response = await post(
        "/api/order/register",
        {
          externalId,
          customer: { externalId: CUSTOMER, email: "ada@example.com", firstName: "Ada" },
          currency: "EUR",
          orderedAt: orderedAt.toISOString(),
          lines: [{ lineId: 1, productId: 7, quantity: 1, unitPrice: amount, totalPaid: amount }],
        },
        { authorization: s.authorization },
      );
      expect(response.status, await response.clone().text()).toBe(201);
    },

    /** Declares a refund, without waiting for its processing. */
    async declareRefund(s: Shop, externalId: number, body: Record<string, unknown>) {
      const response = await post(
        "/api/order/refund",
        { externalId, ...body },
        { authorization: s.authorization },
      );
      expect(response.status).toBe(201);
    },

    /** Reports an activity of the customer; answers its outcome. */
    async activity(s: Shop, activityId: string, kind: string) {
      const response = await post(
        "/api/activity",
        { activityId, kind, customer: { externalId: CUSTOMER } },
        { authorization: s.authorization },
      );
      expect(response.status).toBe(201);
      return (await response.json()) as { outcome: string; points: number };
    },

    /** Registers an order of `amount` (as many points) and waits for the worker to credit it. */
    async earn(s: Shop, externalId: number, amount: number, orderedAt: Date) {
      await this.send(s, externalId, amount, orderedAt);
      await eventually(async () => {
        const { rows } = await pool.query(
          `SELECT 1 FROM orders WHERE store_id = $1 AND external_id = $2 AND status = 'processed'`,
          [s.store.id, String(externalId)],
        );
        return rows[0];
      });
    },

    /** Declares a refund and waits for the worker to apply it. */
    async refund(s: Shop, externalId: number, body: Record<string, unknown>) {
      await this.declareRefund(s, externalId, body);
      await eventually(async () => {
        const { rows } = await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM refunds
           WHERE store_id = $1 AND processing_status = 'pending'`,
          [s.store.id],
        );
        return rows[0]?.n === 0 ? true : undefined;
      });
    },

    async history(s: Shop): Promise<CustomerHistoryResponseV2> {
      const response = await fetch(
        `${app.baseUrl}/point/user-history/${CUSTOMER}?${customerQuery(s)}`,
        { headers: LATEST },
      );
      expect(response.status).toBe(200);
      return customerHistoryResponseV2Schema.parse(await response.json());
    },

    /** Claims the shop's 100-point reward. */
    async claim(s: Shop) {
      const response = await post(`/reward/claim/${CUSTOMER}?${customerQuery(s)}`, {
        rewardId: s.rewardId,
      });
      return { status: response.status, body: (await response.json()) as { code: string | null } };
    },

    /** The store's events of a type, oldest first, as their schema reads them. */
    async events<T extends EventType>(s: Shop, type: T) {
      const { rows } = await pool.query<{ payload: unknown }>(
        `SELECT payload FROM outbox_events WHERE store_id = $1 AND type = $2 ORDER BY id`,
        [s.store.id, type],
      );
      return rows.map((row) => eventDataSchemas[type].parse(row.payload) as EventData<T>);
    },

    /** Runs a task through the job queue, as its schedule does, and waits for it to finish. */
    async runJob(task: "release-pending-points" | "expire-points" | "review-clubs") {
      const { rows } = await pool.query<{ id: string }>(
        `SELECT id FROM graphile_worker.add_job($1, '{}'::json)`,
        [task],
      );
      await eventually(async () => {
        const left = await pool.query<{ last_error: string | null }>(
          `SELECT last_error FROM graphile_worker.jobs WHERE id = $1`,
          [rows[0]?.id],
        );
        // A failed run is retried later: say why now rather than time out.
        const failure = left.rows[0]?.last_error;
        if (failure) throw new Error(`${task} failed: ${failure}`);
        return left.rowCount === 0 ? true : undefined;
      });
    },
  };
}
