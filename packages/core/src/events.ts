export const EVENT_STATUSES = ["captured", "pending", "delivered", "failed"] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
