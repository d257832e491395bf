import { loadConfig } from "@rehook/core";
import { RequestBodies } from "./request-bodies.js";

let processDefault: RequestBodies | undefined;

/**
 * The bodies of routes built without a RequestBodies of their own (tests of one route): every
 * limit at its default. A started server gives its routes one made from its configuration.
 */
export function defaultRequestBodies(): RequestBodies {
  if (!processDefault) {
    const config = loadConfig({}, "");
    processDefault = new RequestBodies({ limits: config.bodyBudget, minRate: config.minUploadRate, trustedProxyHops: 0 });
  }
  return processDefault;
}

/** How long a sender refused for want of room is asked to wait (Retry-After, seconds). */
export const BODY_BUDGET_RETRY_AFTER_SECONDS = 5;

export const BODY_BUDGET_MESSAGE = "The server is receiving too many request bodies at once. Send it again in a few seconds.";
export const BODY_ADDRESS_MESSAGE = "Too many request bodies from your address are being received at once. Send it again in a few seconds.";
export const BODY_TARGET_MESSAGE = "This capture URL is receiving too many request bodies at once. Send it again in a few seconds.";
