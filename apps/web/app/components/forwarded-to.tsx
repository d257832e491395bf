import { forwardTarget, REMOVED_DESTINATION } from "@rehook/core/browser";

/** A destination the event was sent to: its name and URL now (null: removed since). */
export interface ForwardedDestination {
  name: string | null;
  url: string | null;
}

/**
 * The URLs actually requested when the event was forwarded, one per destination it went to:
 * each destination's name, then its URL with the captured sub-path and query (core's
 * forwardTarget, as forwarding appends them). A sub-path a destination refuses shows the
 * destination and why. Names are the tenant's text: shown as text only.
 */
export function ForwardedTo({
  destinations,
  path,
  query,
  className = "mono break",
}: {
  destinations: readonly ForwardedDestination[];
  path: string;
  query: string;
  className?: string;
}) {
  const one = (destination: ForwardedDestination) => {
    const target = destination.url ? forwardTarget(destination.url, path, query) : null;
    return (
      <>
        <span className="forwarded-name fg" data-testid="forwarded-name">
          {destination.name ?? REMOVED_DESTINATION}
        </span>{" "}
        {target && !target.ok ? (
          <span className={className} data-testid="destination-url" title={target.reason}>
            {destination.url} <span className="muted">(not forwarded: {target.reason})</span>
          </span>
        ) : (
          <span className={className} data-testid="destination-url">
            {target?.url ?? destination.url ?? ""}
          </span>
        )}
      </>
    );
  };
  if (destinations.length === 1) return one(destinations[0]!);
  return (
    <ul className="forwarded-list" data-testid="forwarded-to">
      {destinations.map((destination, index) => (
        <li key={index} data-testid="forwarded-destination">
          {one(destination)}
        </li>
      ))}
    </ul>
  );
}
