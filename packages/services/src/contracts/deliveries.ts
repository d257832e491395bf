import { resolveDelivery } from "../delivery-resolution.js";
import { deliveryResolution, resolveDeliveryInput } from "../schemas/replays.js";
import { defineContract } from "./contract.js";

export const resolveDeliveryContract = defineContract({
  name: "deliveries.resolve",
  summary: "Marks a failed delivery of an event resolved, with a note saying what was done (audited)",
  kind: "mutation",
  role: "developer",
  input: resolveDeliveryInput,
  output: deliveryResolution,
  errors: ["not_found", "conflict"],
  rest: {
    method: "POST",
    path: "/events/{id}/deliveries/{destination_id}/resolve",
    status: 200,
    operationId: "resolveDelivery",
    summary: "Mark a failed delivery resolved, with a note (the event reads resolved once every failed delivery is)",
    params: { id: "eventId", destination_id: "destinationId" },
  },
  run: (services, actor, input) => resolveDelivery(services, { teamId: actor.teamId, userId: actor.userId, by: actor, ...input }),
});
