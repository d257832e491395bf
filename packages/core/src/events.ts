export const EVENT_STATUSES = ["captured", "pending", "delivered", "failed", "duplicate"] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
