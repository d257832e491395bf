import { destinationContracts as destinations } from "@rehook/services";
import { contractRoute } from "../contract-route.js";
import { deliverySettingsFromWire, type DeliverySettingsWire } from "../endpoint-input.js";
import { restDestination, restDestinationList } from "../presenters/destination.js";
import type { Route } from "../route.js";
import * as S from "../schemas.js";

/** A create or patch body's fields as the wire carries them (the retry policy's keys in snake_case). */
function destinationWireFields(body: typeof S.DestinationCreate | typeof S.DestinationPatch) {
  return {
    retryPolicy: {
      schema: body.shape.retry_policy,
      decode: (policy: DeliverySettingsWire["retry_policy"]) => deliverySettingsFromWire({ retry_policy: policy }).retryPolicy,
    },
  };
}

/** The /api/v1 routes of an endpoint's destinations, derived from their contracts. */
export const DESTINATION_ROUTES: Route[] = [
  contractRoute(destinations.listDestinationsContract, { description: "The endpoint's destinations, first first", schema: S.DestinationList, errors: [404], present: restDestinationList }),
  contractRoute(destinations.createDestinationContract, {
    description: "The new destination",
    schema: S.Destination,
    errors: [400, 404, 409, 413, 415],
    wire: destinationWireFields(S.DestinationCreate),
    present: restDestination,
  }),
  contractRoute(destinations.updateDestinationContract, {
    description: "The destination after the change",
    schema: S.Destination,
    errors: [400, 404, 413, 415],
    wire: destinationWireFields(S.DestinationPatch),
    present: restDestination,
  }),
  contractRoute(destinations.resumeDestinationContract, { description: "The destination, forwarding again", schema: S.Destination, errors: [404], present: restDestination }),
  contractRoute(destinations.deleteDestinationContract, { description: "Removed", errors: [404] }),
];
