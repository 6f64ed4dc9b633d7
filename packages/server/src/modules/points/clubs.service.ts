import {
  createClubRequestSchema,
  updateClubRequestSchema,
  type CreateClubRequest,
  type UpdateClubRequest,
} from "@loyalty/shared-types";
import type pg from "pg";
import { withTransaction, type Queryable } from "../../db/pool.js";
import { startStoreClubReview } from "./club-reviews.js";
import { AppError } from "../../errors.js";
import { parseRequest } from "../../http/validate.js";
import {
  deleteClub,
  insertClub,
  listClubRows,
  ONE_CLUB_PER_THRESHOLD,
  updateClub,
  type ClubRow,
} from "./clubs.repository.js";

/** Two clubs at one threshold would leave a customer's club to chance. */
function thresholdTaken(threshold: number): AppError {
  return new AppError("validation-failed", `Another club has the threshold ${threshold}.`, [
    {
      location: "body",
      pointer: "/threshold",
      message: "another club has this threshold",
      code: "conflict",
    },
  ]);
}

function isThresholdViolation(error: unknown): boolean {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === "23505" && constraint === ONE_CLUB_PER_THRESHOLD;
}

function notFound(clubId: number): AppError {
  return new AppError("not-found", `The store has no club with the id ${clubId}.`);
}

/**
 * The back-office's clubs (tiers). A change of thresholds reviews every customer's club in
 * the background (`CLUB_CHANGED` for each that changes). One club per threshold: the unique constraint decides, under
 * races too, and its violation names the field. An update finds a club of this store or
 * nothing, so another store's club is not-found before any threshold is compared.
 */
export class ClubsService {
  constructor(private readonly pool: pg.Pool) {}

  list(storeId: number): Promise<ClubRow[]> {
    return listClubRows(this.pool, storeId);
  }

  /** Creates a club; `db` lets a caller make it part of a larger transaction. */
  async create(
    storeId: number,
    input: CreateClubRequest,
    db: Queryable = this.pool,
  ): Promise<ClubRow> {
    const club = parseRequest(createClubRequestSchema, input, "body");
    try {
      const created = await insertClub(db, storeId, club);
      await startStoreClubReview(db, storeId, false);
      return created;
    } catch (error) {
      throw isThresholdViolation(error) ? thresholdTaken(club.threshold) : error;
    }
  }

  async update(storeId: number, clubId: number, input: UpdateClubRequest): Promise<ClubRow> {
    const changes = parseRequest(updateClubRequestSchema, input, "body");
    try {
      return await withTransaction(this.pool, async (tx) => {
        const updated = await updateClub(tx, storeId, clubId, changes);
        if (!updated) throw notFound(clubId);
        if (changes.threshold !== undefined) await startStoreClubReview(tx, storeId, false);
        return updated;
      });
    } catch (error) {
      throw isThresholdViolation(error) ? thresholdTaken(changes.threshold as number) : error;
    }
  }

  /**
   * Its members keep its id until the review that follows gives them the club their figure
   * reaches; their CLUB_CHANGED names it as it was (deleted_clubs).
   */
  async delete(storeId: number, clubId: number): Promise<void> {
    await withTransaction(this.pool, async (tx) => {
      if (!(await deleteClub(tx, storeId, clubId))) throw notFound(clubId);
      await startStoreClubReview(tx, storeId, false);
    });
  }
}
