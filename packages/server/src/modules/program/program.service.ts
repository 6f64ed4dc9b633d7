import {
  programSettingsSchema,
  type ProgramSettings,
  type ProgramSettingsInput,
} from "@loyalty/shared-types";
import type pg from "pg";
import type { Clock } from "../../clock.js";
import { parseRequest } from "../../http/validate.js";
import { releaseDueLots } from "../ledger/ledger.repository.js";
import { findProgramSettings, saveProgramSettings } from "./program.repository.js";

/** Lots freed per transaction: short transactions, each holding few customers' rows. */
const RELEASE_BATCH = 5_000;

/** The programme's settings, and the jobs that apply them over time. */
export class ProgramService {
  constructor(
    private readonly pool: pg.Pool,
    /** What today is for pending periods (tests move it). */
    private readonly clock: Clock,
  ) {}

  settings(storeId: number): Promise<ProgramSettings> {
    return findProgramSettings(this.pool, storeId);
  }

  /**
   * Sets the whole document; errors name the fields. Points already earned keep the date they
   * become spendable: a setting applies to what is earned from now on.
   */
  async saveSettings(storeId: number, input: ProgramSettingsInput): Promise<ProgramSettings> {
    await saveProgramSettings(
      this.pool,
      storeId,
      parseRequest(programSettingsSchema, input, "body"),
    );
    return this.settings(storeId);
  }

  /**
   * Frees every held earning whose date has come, in batches of their own transactions, and
   * returns how many. Lots a refund is taking points back from are left to the next run.
   */
  async releaseDuePoints(batchSize = RELEASE_BATCH): Promise<number> {
    const now = this.clock();
    let released = 0;
    for (;;) {
      const freed = await releaseDueLots(this.pool, now, batchSize);
      released += freed;
      if (freed < batchSize) return released;
    }
  }
}
