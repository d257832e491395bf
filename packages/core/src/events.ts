export const EVENT_STATUSES = ["captured", "pending", "delivered", "failed"] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

export function isEventStatus(value: string): value is EventStatus {
  return (EVENT_STATUSES as readonly string[]).includes(value);
}

/** An endpoint without a destination only captures; one with a destination queues a forward. */
export function statusAtCapture(destinationUrl: string | null): EventStatus {
  return destinationUrl ? "pending" : "captured";
}
