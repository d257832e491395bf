import type { TestDatabase } from "./postgres.js";

export interface EventCountMismatch {
  endpoint_id: string;
  status: string;
  kept: number;
  real: number;
}

/**
 * Where the kept counts (event_counts, summed) and a real count of the events disagree, per
 * endpoint and status. One statement, so both sides are read in the same snapshot even while
 * events are still being captured and delivered.
 */
export async function eventCountMismatches(db: Pick<TestDatabase, "query">): Promise<EventCountMismatch[]> {
  return db.query<EventCountMismatch>(`
    select endpoint_id, status, coalesce(k.n, 0)::int as kept, coalesce(r.n, 0)::int as real
    from (select endpoint_id, status, sum(n) as n from event_counts group by 1, 2 having sum(n) <> 0) k
    full join (select endpoint_id, status, count(*) as n from events group by 1, 2) r using (endpoint_id, status)
    where k.n is distinct from r.n
    order by 1, 2`);
}
