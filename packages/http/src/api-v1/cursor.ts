import { isUuid, UserError } from "@rehook/core";
import { z } from "zod";

/**
 * The events listing's cursor, opaque to clients (base64url of a tagged event id), so its
 * form can change without breaking anyone who passes meta.next_cursor back as it came.
 */
export const eventCursor = {
  encode(eventId: string): string {
    return Buffer.from(`e:${eventId}`).toString("base64url");
  },
  decode(cursor: string): string {
    const text = Buffer.from(cursor, "base64url").toString("utf8");
    const eventId = text.slice(2);
    if (!text.startsWith("e:") || !isUuid(eventId)) throw new UserError("validation_failed", "This cursor is not one this API gave. Pass meta.next_cursor back as it came.");
    return eventId;
  },
};

/** The list's `before` (an event id) as the API carries it: the opaque cursor of meta.next_cursor. */
export const EVENT_LIST_WIRE = {
  before: {
    schema: z.string().min(1).max(200).optional().describe("meta.next_cursor of the previous page: the next (older) page, stable while new events arrive"),
    decode: (cursor: string) => eventCursor.decode(cursor),
  },
};
