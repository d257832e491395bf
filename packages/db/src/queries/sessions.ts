import type { Pool } from "../pool.js";

/** Deletes up to `limit` expired sessions (a bounded statement: no long lock on the table); answers how many. */
export async function deleteExpiredSessions(pool: Pool, limit: number): Promise<number> {
  const result = await pool.query({
    name: "rehook_delete_expired_sessions",
    text: `delete from sessions where id in (select id from sessions where expires_at < now() limit $1)`,
    values: [limit],
  });
  return result.rowCount ?? 0;
}
