import type { Queryable } from "../../db/pool.js";

export interface DemoRule {
  kind: "product" | "category" | "default";
  targetId: number | null;
  name: string;
  rate: number;
  pointsPerItem: number;
}

export interface DemoClub {
  name: string;
  threshold: number;
  multiplier: number;
}

export interface DemoReward {
  name: string;
  description: string;
  triggerValue: number;
  voucher: {
    kind: "fixed_amount" | "percentage" | "free_shipping";
    value: number | null;
    currency: string | null;
    minimumOrderAmount: number | null;
    validityDays: number | null;
    usageLimit: number | null;
  };
}

export async function insertRules(
  db: Queryable,
  storeId: number,
  rules: DemoRule[],
): Promise<void> {
  for (const rule of rules) {
    await db.query(
      `INSERT INTO attribution_rules (store_id, kind, target_id, name, rate, points_per_item)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [storeId, rule.kind, rule.targetId, rule.name, rule.rate, rule.pointsPerItem],
    );
  }
}

export async function insertClubs(
  db: Queryable,
  storeId: number,
  clubs: DemoClub[],
): Promise<void> {
  for (const club of clubs) {
    await db.query(
      `INSERT INTO clubs (store_id, name, threshold, multiplier) VALUES ($1, $2, $3, $4)`,
      [storeId, club.name, club.threshold, club.multiplier],
    );
  }
}

export async function insertRewards(
  db: Queryable,
  storeId: number,
  rewards: DemoReward[],
): Promise<void> {
  for (const reward of rewards) {
    const { voucher } = reward;
    await db.query(
      `WITH r AS (
         INSERT INTO rewards (store_id, name, description, trigger_value)
         VALUES ($1, $2, $3, $4) RETURNING id
       )
       INSERT INTO voucher_versions
         (reward_id, version, kind, value, currency, minimum_order_amount, validity_days, usage_limit)
       SELECT r.id, 1, $5, $6, $7, $8, $9, $10 FROM r`,
      [
        storeId,
        reward.name,
        reward.description,
        reward.triggerValue,
        voucher.kind,
        voucher.value,
        voucher.currency,
        voucher.minimumOrderAmount,
        voucher.validityDays,
        voucher.usageLimit,
      ],
    );
  }
}

export async function setBrandingColor(
  db: Queryable,
  storeId: number,
  color: string,
): Promise<void> {
  await db.query(`UPDATE stores SET branding_color = $2, updated_at = now() WHERE id = $1`, [
    storeId,
    color,
  ]);
}
