import { Migration } from "@mikro-orm/migrations";

/**
 * An exact circuit breaker (issue 42). A destination whose breaker is half-open (it has one,
 * and failed attempts in a row: consecutive_failures > 0, not paused) sends one delivery at a
 * time, across every instance: the probe. The destination row names the delivery that holds
 * that slot (probe_event_id: the probe's event; the delivery is that event's to this
 * destination) and until when (probe_lease_expires_at, the delivery's own lease). The claim
 * takes the slot under the destination's row lock; the completion (or the hand-back) of that
 * delivery frees it; a holder that crashed lets it expire with its lease.
 *
 * Nothing to convert: a destination that has failed attempts in a row and a breaker is
 * half-open from now on (its next send is a probe), and a paused one stays paused with its
 * count. No foreign key to events, for the reason deliveries have none (events are
 * partitioned and purged in bulk); a stale probe_event_id is only ever compared, never joined.
 */
export class Migration20261209030000_breaker_probe extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "destinations" add column "probe_event_id" uuid null, add column "probe_lease_expires_at" timestamptz(3) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "destinations" drop column "probe_event_id", drop column "probe_lease_expires_at";`);
  }
}
