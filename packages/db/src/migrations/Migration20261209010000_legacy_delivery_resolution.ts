import { Migration } from "@mikro-orm/migrations";

/**
 * Resolution for failed events forwarded before routing (issue 42). Those have no delivery
 * rows (the routing upgrade queued only pending events; "retry now" adopts them one at a
 * time), so the per-delivery rule of the delivery_history migration could not reach them, and
 * neither could a member marking them resolved. Each gets its failed delivery to the
 * endpoint's first destination, as its page has always shown it (its attempts went there),
 * exactly as a retry would adopt it; then that delivery is resolved by the earliest delivered
 * replay to that destination made after it failed, as delivery_history resolves the others.
 *
 * Down leaves the rows: a retry could have adopted the same ones, and they say nothing untrue.
 */
export class Migration20261209010000_legacy_delivery_resolution extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      insert into "deliveries" ("event_id", "destination_id", "endpoint_id", "status", "attempts", "completed_at")
      select e.id, t.id, e.endpoint_id, 'failed', (select count(*) from "delivery_attempts" a where a.event_id = e.id), e.completed_at
      from "events" e cross join lateral (select t.id from "destinations" t where t.endpoint_id = e.endpoint_id order by t.position limit 1) t
      where e.status = 'failed'
        and not exists (select 1 from "deliveries" d where d.event_id = e.id)
        and exists (select 1 from "delivery_attempts" a where a.event_id = e.id and a.destination_id is null)
      on conflict do nothing;`);
    this.addSql(`
      update "deliveries" d set "resolved_at" = x.replayed_at, "resolved_by_replay_id" = x.id
      from (
        select distinct on (f.event_id, f.destination_id) f.event_id, f.destination_id, r.id, r.replayed_at
        from "deliveries" f join "replay_attempts" r on r.event_id = f.event_id and r.destination_id = f.destination_id
        where f.status = 'failed' and f.resolved_at is null and r.status = 'delivered' and (f.completed_at is null or r.replayed_at >= f.completed_at)
        order by f.event_id, f.destination_id, r.replayed_at
      ) x
      where d.event_id = x.event_id and d.destination_id = x.destination_id;`);
  }

  override async down(): Promise<void> {
    // Nothing to undo: see above.
  }
}
