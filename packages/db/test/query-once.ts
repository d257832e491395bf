import pg from "pg";

/** One statement on a connection of its own, for a server a test started itself. */
export async function queryOnce(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** `select 1` through `url`: 1 when the server answers. */
export const selectOne = async (url: string) => ((await queryOnce(url, "select 1 as one"))[0] as { one: number }).one;
