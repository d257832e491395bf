import { ByteBudget, DEFAULT_BUFFERED_BODY_BYTES } from "@rehook/core";

/**
 * What every request body being read in this process may hold in memory at once, across all
 * connections and routes (MAX_BUFFERED_BODY_BYTES; startServer sets the limit). A body that
 * does not fit is refused with 503 rather than waited for: a waiting upload would still hold
 * its socket, and senders retry a 503.
 */
export const requestBodyBudget = new ByteBudget(DEFAULT_BUFFERED_BODY_BYTES);

/** How long a sender refused for want of room is asked to wait (Retry-After, seconds). */
export const BODY_BUDGET_RETRY_AFTER_SECONDS = 5;

export const BODY_BUDGET_MESSAGE = "The server is receiving too many request bodies at once. Send it again in a few seconds.";
