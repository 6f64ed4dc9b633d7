import type { Queryable } from "../../db/pool.js";

export interface AdminUserRow {
  id: number;
  email: string;
  passwordHash: string;
  /** The one store this admin administers; null for an admin of the whole service. */
  storeId: number | null;
  createdAt: Date;
  disabledAt: Date | null;
}

const ADMIN_COLUMNS = `id, email, password_hash AS "passwordHash", store_id AS "storeId",
  created_at AS "createdAt", disabled_at AS "disabledAt"`;

export async function insertAdminUser(
  db: Queryable,
  user: { email: string; passwordHash: string; storeId: number | null },
): Promise<AdminUserRow | undefined> {
  const { rows } = await db.query<AdminUserRow>(
    `INSERT INTO admin_users (email, password_hash, store_id) VALUES ($1, $2, $3)
     ON CONFLICT (email) DO NOTHING
     RETURNING ${ADMIN_COLUMNS}`,
    [user.email, user.passwordHash, user.storeId],
  );
  return rows[0];
}

export async function findAdminUserByEmail(
  db: Queryable,
  email: string,
): Promise<AdminUserRow | undefined> {
  const { rows } = await db.query<AdminUserRow>(
    `SELECT ${ADMIN_COLUMNS} FROM admin_users WHERE email = $1`,
    [email],
  );
  return rows[0];
}

export async function findAdminUserById(
  db: Queryable,
  id: number,
): Promise<AdminUserRow | undefined> {
  const { rows } = await db.query<AdminUserRow>(
    `SELECT ${ADMIN_COLUMNS} FROM admin_users WHERE id = $1`,
    [id],
  );
  return rows[0];
}

export async function listAdminUsers(db: Queryable): Promise<AdminUserRow[]> {
  const { rows } = await db.query<AdminUserRow>(
    `SELECT ${ADMIN_COLUMNS} FROM admin_users ORDER BY id`,
  );
  return rows;
}

export async function disableAdminUser(
  db: Queryable,
  email: string,
): Promise<AdminUserRow | undefined> {
  const { rows } = await db.query<AdminUserRow>(
    `UPDATE admin_users SET disabled_at = coalesce(disabled_at, now()) WHERE email = $1
     RETURNING ${ADMIN_COLUMNS}`,
    [email],
  );
  return rows[0];
}
