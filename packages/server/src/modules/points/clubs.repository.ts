import type { Queryable } from "../../db/pool.js";
import { setClause } from "../../db/set-clause.js";
import type { Club } from "./clubs.js";

/** A club as the back-office sees it: the club, dated. */
export interface ClubRow extends Club {
  createdAt: Date;
  updatedAt: Date;
}

/** The unique constraint allowing one club per threshold in a store. */
export const ONE_CLUB_PER_THRESHOLD = "clubs_store_id_threshold_key";

const CLUB_COLUMNS = `id, name, threshold, multiplier, created_at AS "createdAt",
  updated_at AS "updatedAt"`;

/** pg reads numeric as text to keep it exact: 3 decimals, which a number holds. */
type StoredClub = Omit<ClubRow, "multiplier"> & { multiplier: string };

function toClub(row: StoredClub): ClubRow {
  return { ...row, multiplier: Number(row.multiplier) };
}

/** A store's clubs, lowest threshold first. */
export async function listClubRows(db: Queryable, storeId: number): Promise<ClubRow[]> {
  const { rows } = await db.query<StoredClub>(
    `SELECT ${CLUB_COLUMNS} FROM clubs WHERE store_id = $1 ORDER BY threshold`,
    [storeId],
  );
  return rows.map(toClub);
}

export async function insertClub(
  db: Queryable,
  storeId: number,
  club: Omit<Club, "id">,
): Promise<ClubRow> {
  const { rows } = await db.query<StoredClub>(
    `INSERT INTO clubs (store_id, name, threshold, multiplier) VALUES ($1, $2, $3, $4)
     RETURNING ${CLUB_COLUMNS}`,
    [storeId, club.name, club.threshold, club.multiplier],
  );
  return toClub(rows[0] as StoredClub);
}

export type ClubUpdate = Partial<Omit<Club, "id">>;

/** The columns a back-office update may change, by field name. */
const UPDATABLE: Record<keyof ClubUpdate, string> = {
  name: "name",
  threshold: "threshold",
  multiplier: "multiplier",
};

export async function updateClub(
  db: Queryable,
  storeId: number,
  clubId: number,
  changes: ClubUpdate,
): Promise<ClubRow | undefined> {
  const set = setClause(UPDATABLE, changes, 3);
  const { rows } = await db.query<StoredClub>(
    `UPDATE clubs SET ${set.sql} WHERE store_id = $1 AND id = $2 RETURNING ${CLUB_COLUMNS}`,
    [storeId, clubId, ...set.values],
  );
  return rows[0] && toClub(rows[0]);
}

/** False when the store has no such club. */
export async function deleteClub(db: Queryable, storeId: number, clubId: number): Promise<boolean> {
  // Kept as it was: its members' CLUB_CHANGED will name it.
  const { rowCount } = await db.query(
    `WITH gone AS (
       DELETE FROM clubs WHERE store_id = $1 AND id = $2
       RETURNING id, store_id, name, threshold, multiplier
     )
     INSERT INTO deleted_clubs (id, store_id, name, threshold, multiplier)
     SELECT id, store_id, name, threshold, multiplier FROM gone`,
    [storeId, clubId],
  );
  return rowCount === 1;
}
