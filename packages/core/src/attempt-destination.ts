/*
 * Where one attempt went, named the same way on every surface: an endpoint destination by its
 * name (and URL), or one of the places a replay can go that is no destination of the endpoint:
 * a staging host, a custom URL, or the developer's machine (through `rehook listen` or the
 * dashboard's browser). Destination names are the tenant's text: surfaces show them as text.
 */

/** How a local replay reached the developer's machine (null: recorded before this was kept). */
export type LocalVia = "browser" | "listen";

export type AttemptDestination =
  /** One of the endpoint's destinations (id null: one removed since, known by its URL only). */
  | { kind: "destination"; destinationId: string | null; name: string | null; url: string | null }
  | { kind: "staging"; url: string }
  | { kind: "custom"; url: string }
  | { kind: "local"; via: LocalVia | null; url: string };

/** A destination whose name is unknown: removed since (or, before routing, its URL changed). */
export const REMOVED_DESTINATION = "Removed destination";

/** The words for where an attempt went: the destination's name, "staging", "custom URL", "local via listen", "browser local" or "local". */
export function attemptDestinationLabel(destination: AttemptDestination): string {
  switch (destination.kind) {
    case "destination":
      return destination.name ?? REMOVED_DESTINATION;
    case "staging":
      return "staging";
    case "custom":
      return "custom URL";
    case "local":
      return destination.via === "listen" ? "local via listen" : destination.via === "browser" ? "browser local" : "local";
  }
}

/** The label with the URL after it ("Billing · https://…"), when the URL is known. */
export function attemptDestinationText(destination: AttemptDestination): string {
  const label = attemptDestinationLabel(destination);
  return destination.url ? `${label} · ${destination.url}` : label;
}

/** A stored replay attempt's facts that say where it went. */
export interface ReplayDestinationFacts {
  environment: string;
  /** The URL it was sent to (with the sub-path and query). */
  destinationUrl: string;
  /** The endpoint destination it went to (null: staging, local, custom, or an old replay whose destination is gone). */
  destinationId: string | null;
  /** That destination's name now (null: removed since, or none). */
  destinationName: string | null;
  localVia: LocalVia | null;
}

/**
 * Where a replay went. A replay to one of the endpoint's destinations names it whatever the
 * environment was called; the others by their environment. An "original" replay whose
 * destination could not be named (its URL matched none when destinations came) is a removed one.
 */
export function replayDestination(replay: ReplayDestinationFacts): AttemptDestination {
  if (replay.destinationId !== null) return { kind: "destination", destinationId: replay.destinationId, name: replay.destinationName, url: replay.destinationUrl };
  switch (replay.environment) {
    case "staging":
      return { kind: "staging", url: replay.destinationUrl };
    case "local":
      return { kind: "local", via: replay.localVia, url: replay.destinationUrl };
    case "custom":
      return { kind: "custom", url: replay.destinationUrl };
    default:
      return { kind: "destination", destinationId: null, name: null, url: replay.destinationUrl };
  }
}
