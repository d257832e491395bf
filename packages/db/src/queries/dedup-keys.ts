import type { Pool } from "../pool.js";

/*
 * Dedup keys live as long as their window: the capture statement takes over an expired key
 * on its next use, and these remove the keys nobody repeats (dedup_keys_expires_at_index).
 */

/** Deletes up to `limit` keys whose window has passed; answers how many. */
export async function deleteExpiredDedupKeys(pool: Pool, limit: number): Promise<number> {
  const result = await pool.query({
    name: "rehook_purge_dedup_keys",
    text: `delete from dedup_keys where ctid = any(array(select ctid from dedup_keys where expires_at <= now() limit $1))`,
    values: [limit],
  });
  return result.rowCount ?? 0;
}

/** Removes a deleted endpoint's keys (it has no events left to be duplicates of). */
export async function forgetEndpointDedupKeys(pool: Pool, endpointId: string): Promise<void> {
  await pool.query("delete from dedup_keys where endpoint_id = $1 and not exists (select 1 from endpoints where id = $1)", [endpointId]);
}
