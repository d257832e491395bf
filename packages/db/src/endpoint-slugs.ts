import type { Pool } from "./pool.js";

/** The ids of the endpoints with these capture slugs (slug → id; unknown slugs are absent): one statement on the unique index. */
export async function endpointIdsBySlug(pool: Pick<Pool, "query">, slugs: readonly string[]): Promise<Map<string, string>> {
  const result = await pool.query<{ slug: string; id: string }>({
    name: "endpoint-ids-by-slug",
    text: "select slug, id from endpoints where slug = any($1::text[])",
    values: [slugs],
  });
  return new Map(result.rows.map((row) => [row.slug, row.id]));
}
