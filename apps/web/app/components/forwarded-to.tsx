/** Where a forward of the event goes, as packages/core's forwardTarget works it out. */
export type ForwardTarget = { ok: true; url: string } | { ok: false; reason: string };

/**
 * The URL actually requested when the event was forwarded: the destination with the captured
 * sub-path and query. A sub-path the destination refuses shows the destination and why.
 */
export function ForwardedTo({ destinationUrl, target, className = "mono break" }: { destinationUrl: string; target: ForwardTarget | null; className?: string }) {
  if (target && !target.ok) {
    return (
      <span className={className} data-testid="destination-url" title={target.reason}>
        {destinationUrl} <span className="muted">(not forwarded: {target.reason})</span>
      </span>
    );
  }
  return (
    <span className={className} data-testid="destination-url">
      {target?.url ?? destinationUrl}
    </span>
  );
}
