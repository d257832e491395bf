import { Link } from "@remix-run/react";
import { destinationNames } from "../../components/delivery-states";

/** Deliveries held by a paused destination, as the event page names them. */
export type PausedDeliveries = ReadonlyArray<{ name: string | null }>;

/**
 * "Paused: sent once Billing is resumed", the destination linking to the endpoint's
 * Destinations section where it is resumed. A destination, not the endpoint: each destination
 * has its own circuit breaker, and the others keep sending.
 */
export function PausedUntil({ endpointId, paused }: { endpointId: string; paused: PausedDeliveries }) {
  return (
    <>
      Paused: sent once{" "}
      <Link to={`/endpoints/${endpointId}#destinations`} data-testid="paused-destination">
        {destinationNames(paused)}
      </Link>{" "}
      {paused.length === 1 ? "is" : "are"} resumed
    </>
  );
}
