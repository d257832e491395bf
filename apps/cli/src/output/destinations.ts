import { restDestination } from "@rehook/http";
import type { DestinationView } from "@rehook/services";
import type { Column } from "./table.js";

// Destinations as the destination commands print them; --json gives the API's spelling (restDestination).

/** A destination in the API's spelling (snake_case, ISO times). */
export const wireDestination = (view: DestinationView) => restDestination(view);

/** disabled (never sent to), paused (its circuit breaker holds its deliveries) or enabled. */
export function destinationState(view: Pick<DestinationView, "enabled" | "forwardingPaused">): "disabled" | "paused" | "enabled" {
  if (!view.enabled) return "disabled";
  return view.forwardingPaused ? "paused" : "enabled";
}

function stateColor(view: DestinationView): number | undefined {
  const state = destinationState(view);
  if (state === "paused") return 31;
  return state === "disabled" ? 33 : undefined;
}

export const DESTINATION_COLUMNS: Column<DestinationView>[] = [
  { header: "ID", width: 36, value: (d) => d.id },
  { header: "NAME", width: 20, value: (d) => d.name },
  { header: "URL", width: 48, value: (d) => d.url },
  { header: "FILTER", width: 6, value: (d) => (d.filter ? "yes" : "no") },
  { header: "RATE", width: 8, align: "right", value: (d) => (d.rateLimitPerSecond === null ? "-" : `${d.rateLimitPerSecond.toLocaleString("en-US")}/s`) },
  { header: "ORDERED", width: 7, value: (d) => (d.ordered ? "yes" : "no") },
  { header: "STATE", width: 8, value: destinationState, color: stateColor },
];
