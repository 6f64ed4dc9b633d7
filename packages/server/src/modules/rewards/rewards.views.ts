import {
  type AdminReward,
  type AdminVoucherVersion,
  type CustomerCodesResponse,
} from "@loyalty/shared-types";
import type { AdminRewardRow, VoucherVersionRow } from "./rewards.admin.repository.js";
import type { UsableCode } from "./rewards.repository.js";

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

export function customerCodesView(codes: UsableCode[]): CustomerCodesResponse {
  return {
    codes: codes.map((code) => ({
      ...code,
      claimedAt: code.claimedAt.toISOString(),
      expiresAt: code.expiresAt?.toISOString() ?? null,
    })),
  };
}
