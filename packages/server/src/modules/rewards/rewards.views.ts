import { type AdminReward, type AdminVoucherVersion } from "@loyalty/shared-types";
import type { AdminRewardRow, VoucherVersionRow } from "./rewards.admin.repository.js";

export function rewardView(row: AdminRewardRow): AdminReward {
  return {
    ...row,
    voucher: { ...row.voucher, createdAt: row.voucher.createdAt.toISOString() },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function voucherVersionView({ voucher, current }: VoucherVersionRow): AdminVoucherVersion {
  return {
    ...voucher,
    createdAt: voucher.createdAt.toISOString(),
    codesRemaining:
      voucher.usageLimit === null ? null : Math.max(0, voucher.usageLimit - voucher.codesIssued),
    current,
  };
}
