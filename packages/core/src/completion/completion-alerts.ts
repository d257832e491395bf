import type { EventStatus } from "../events.js";
import type { AlertTrigger } from "../alerts/rules.js";

// Which alert rules the completion of a batch of attempts raises. The completion statement
// (packages/db alerts.ts COMPLETION_ALERTS_CTE, part of deliveries.ts COMPLETE) mirrors it.

/** An alert rule as the completion reads it. */
export interface WatchingRule {
  id: string;
  trigger: AlertTrigger;
  enabled: boolean;
  /** Paused by its channel's answers (paused_reason is set): it raises nothing until saved again. */
  paused: boolean;
  /** The endpoint it watches; null: every endpoint of its team. */
  endpointId: string | null;
}

/** What one completion changed, for the alerts. */
export interface CompletionChange {
  endpointId: string;
  /** Events whose status this completion moved, before and after. */
  events: ReadonlyArray<{ id: string; was: EventStatus; status: EventStatus }>;
  /** Destinations whose breaker this completion tripped, with the event whose attempt tripped it. */
  tripped: ReadonlyArray<{ destinationId: string; eventId: string }>;
}

export interface RaisedAlert {
  ruleId: string;
  kind: "delivery_failed" | "destination_paused";
  eventId: string;
  endpointId: string;
  destinationId: string | null;
}

/** Whether the rule raises its trigger's alerts for this endpoint. */
export function ruleWatches(rule: WatchingRule, trigger: AlertTrigger, endpointId: string): boolean {
  return rule.trigger === trigger && rule.enabled && !rule.paused && (rule.endpointId === null || rule.endpointId === endpointId);
}

/**
 * An event that reached failed (and was not failed before) raises delivery_failed; a tripped
 * breaker raises destination_paused; each for every rule of the team that watches it.
 */
export function completionAlerts(rules: readonly WatchingRule[], change: CompletionChange): RaisedAlert[] {
  const raised: RaisedAlert[] = [];
  for (const event of change.events) {
    if (event.was === "failed" || event.status !== "failed") continue;
    for (const rule of rules) {
      if (ruleWatches(rule, "delivery_failed", change.endpointId)) raised.push({ ruleId: rule.id, kind: "delivery_failed", eventId: event.id, endpointId: change.endpointId, destinationId: null });
    }
  }
  for (const trip of change.tripped) {
    for (const rule of rules) {
      if (ruleWatches(rule, "destination_paused", change.endpointId))
        raised.push({ ruleId: rule.id, kind: "destination_paused", eventId: trip.eventId, endpointId: change.endpointId, destinationId: trip.destinationId });
    }
  }
  return raised;
}
