/** How long a sender refused for want of room is asked to wait (Retry-After, seconds). */
export const BODY_BUDGET_RETRY_AFTER_SECONDS = 5;
