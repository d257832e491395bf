import type { MigrationObject } from "@mikro-orm/core";
import { Migration20261121000000_initial } from "./Migration20261121000000_initial.js";
import { Migration20261121010000_delivery_lease } from "./Migration20261121010000_delivery_lease.js";
import { Migration20261121020000_forwarded_at } from "./Migration20261121020000_forwarded_at.js";
import { Migration20261121030000_replay_jobs } from "./Migration20261121030000_replay_jobs.js";
import { Migration20261121040000_notification_outbox } from "./Migration20261121040000_notification_outbox.js";
import { Migration20261122000000_keep_proxy_headers } from "./Migration20261122000000_keep_proxy_headers.js";
import { Migration20261122100000_retries } from "./Migration20261122100000_retries.js";
import { Migration20261122200000_pending_by_endpoint } from "./Migration20261122200000_pending_by_endpoint.js";
import { Migration20261122300000_jobs } from "./Migration20261122300000_jobs.js";
import { Migration20261123000000_event_partitions } from "./Migration20261123000000_event_partitions.js";
import { Migration20261123010000_event_counts_retention } from "./Migration20261123010000_event_counts_retention.js";
import { Migration20261124000000_admins_invites } from "./Migration20261124000000_admins_invites.js";
import { Migration20261125000000_event_minutes } from "./Migration20261125000000_event_minutes.js";
import { Migration20261126000000_replay_request } from "./Migration20261126000000_replay_request.js";
import { Migration20261127000000_ingress_control } from "./Migration20261127000000_ingress_control.js";
import { Migration20261128000000_event_search } from "./Migration20261128000000_event_search.js";
import { Migration20261129000000_event_answers } from "./Migration20261129000000_event_answers.js";
import { Migration20261130000000_search_paths } from "./Migration20261130000000_search_paths.js";
import { Migration20261201000000_teams } from "./Migration20261201000000_teams.js";
import { Migration20261202000000_dedup } from "./Migration20261202000000_dedup.js";
import { Migration20261203000000_destinations } from "./Migration20261203000000_destinations.js";

/** Every migration in order. Listed explicitly so the built package needs no folder scan. */
export const migrationsList: MigrationObject[] = [
  { name: "Migration20261121000000_initial", class: Migration20261121000000_initial },
  { name: "Migration20261121010000_delivery_lease", class: Migration20261121010000_delivery_lease },
  { name: "Migration20261121020000_forwarded_at", class: Migration20261121020000_forwarded_at },
  { name: "Migration20261121030000_replay_jobs", class: Migration20261121030000_replay_jobs },
  { name: "Migration20261121040000_notification_outbox", class: Migration20261121040000_notification_outbox },
  { name: "Migration20261122000000_keep_proxy_headers", class: Migration20261122000000_keep_proxy_headers },
  { name: "Migration20261122100000_retries", class: Migration20261122100000_retries },
  { name: "Migration20261122200000_pending_by_endpoint", class: Migration20261122200000_pending_by_endpoint },
  { name: "Migration20261122300000_jobs", class: Migration20261122300000_jobs },
  { name: "Migration20261123000000_event_partitions", class: Migration20261123000000_event_partitions },
  { name: "Migration20261123010000_event_counts_retention", class: Migration20261123010000_event_counts_retention },
  { name: "Migration20261124000000_admins_invites", class: Migration20261124000000_admins_invites },
  { name: "Migration20261125000000_event_minutes", class: Migration20261125000000_event_minutes },
  { name: "Migration20261126000000_replay_request", class: Migration20261126000000_replay_request },
  { name: "Migration20261127000000_ingress_control", class: Migration20261127000000_ingress_control },
  { name: "Migration20261128000000_event_search", class: Migration20261128000000_event_search },
  { name: "Migration20261129000000_event_answers", class: Migration20261129000000_event_answers },
  { name: "Migration20261130000000_search_paths", class: Migration20261130000000_search_paths },
  { name: "Migration20261201000000_teams", class: Migration20261201000000_teams },
  { name: "Migration20261202000000_dedup", class: Migration20261202000000_dedup },
  { name: "Migration20261203000000_destinations", class: Migration20261203000000_destinations },
];
