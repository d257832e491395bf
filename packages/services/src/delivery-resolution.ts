import { markResolvedRefusal, UserError } from "@rehook/core";
import { isEventResolved, lockOwnedDelivery, resolveDeliveryByMember } from "@rehook/db";
import { z } from "zod";
import { recordAudit, type AuditedBy } from "./audit.js";
import type { ServiceContext } from "./context.js";
import { deliveryResolution, resolveDeliveryInput } from "./schemas/replays.js";
import { parseInput } from "./validation.js";

export type DeliveryResolutionView = z.infer<typeof deliveryResolution>;

/**
 * A member marks one failed delivery of an event resolved, saying what was done (the
 * failure was handled elsewhere, the data was fixed by hand, it does not matter): the
 * delivery keeps its status, and the event reads resolved once every failed delivery is.
 * Recorded in the audit log with the note, in the same transaction. A delivery that is not
 * failed, or is resolved already, is a conflict.
 */
export async function resolveDelivery(
  ctx: Pick<ServiceContext, "orm" | "now">,
  input: { teamId: string; userId: string; by?: AuditedBy; eventId: string; destinationId: string; note: string },
): Promise<DeliveryResolutionView> {
  const { eventId, destinationId, note } = parseInput(resolveDeliveryInput, { eventId: input.eventId, destinationId: input.destinationId, note: input.note });
  const at = new Date(ctx.now?.() ?? Date.now());
  return ctx.orm.em.fork().transactional(async (em) => {
    const delivery = await lockOwnedDelivery(em, input.teamId, eventId, destinationId);
    if (!delivery) throw new UserError("not_found", `There is no delivery of the event ${eventId} to the destination ${destinationId}. Check both ids on the event's page.`);
    const refusal = markResolvedRefusal({ ...delivery });
    if (refusal) throw new UserError("conflict", refusal);
    await resolveDeliveryByMember(em, { eventId, destinationId, userId: input.userId, note, at });
    await recordAudit(em, input.by, {
      teamId: input.teamId,
      action: "delivery.resolve",
      target: { type: "event", id: eventId, name: delivery.destinationName },
      changes: { destination_id: destinationId, note },
    });
    return { eventId, destinationId, resolvedAt: at, resolvedByUserId: input.userId, note, eventResolved: await isEventResolved(em, eventId) };
  });
}
