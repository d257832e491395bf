import { isUuid, UserError } from "@rehook/core";

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
