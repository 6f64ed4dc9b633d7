import type pg from "pg";

/** Per table: its row count and a digest of every row's content. */
export type DatabaseSnapshot = Record<string, { rows: number; digest: string }>;

/**
 * Everything the API may have written: each table of the public schema (but the migrations'
 * own), by row count and an md5 of all its rows as text, and the jobs waiting in graphile-worker's
 * queue (no worker runs unless a test starts one: a job there was queued by a request). Two
 * equal snapshots mean that nothing was inserted, changed or deleted in between.
 */
export async function snapshotDatabase(pool: pg.Pool): Promise<DatabaseSnapshot> {
  const { rows: tables } = await pool.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'pgmigrations'
     ORDER BY table_name`,
  );
  const parts = tables.map(
    ({ name }) =>
      `SELECT ${quoteLiteral(name)} AS name, count(*)::int AS rows,
              coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') AS digest
       FROM public.${quoteIdentifier(name)} t`,
  );
  const { rows: jobsTable } = await pool.query<{ present: boolean }>(
    `SELECT to_regclass('graphile_worker._private_jobs') IS NOT NULL AS present`,
  );
  if (jobsTable[0]?.present) {
    parts.push(
      `SELECT 'graphile_worker jobs' AS name, count(*)::int AS rows,
              coalesce(md5(string_agg(j.id::text || ' ' || j.payload::text, ',' ORDER BY j.id)), '')
                AS digest
       FROM graphile_worker._private_jobs j`,
    );
  }
  const { rows } = await pool.query<{ name: string; rows: number; digest: string }>(
    parts.join("\nUNION ALL\n"),
  );
  return Object.fromEntries(rows.map(({ name, ...rest }) => [name, rest]));
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
