import { safeText } from "../text-input.js";

/** Destinations one endpoint forwards to at most. */
export const MAX_DESTINATIONS_PER_ENDPOINT = 20;
/** The highest rate limit a destination may set, in deliveries started per second. */
export const MAX_RATE_LIMIT_PER_SECOND = 10_000;

export const destinationNameSchema = safeText()
  .trim()
  .min(1, "the destination name is required")
  .max(100, "the destination name must be at most 100 characters");

/** A destination's name when none is given: its URL's host ("Destination" when it has none). */
export function defaultDestinationName(url: string): string {
  try {
    return new URL(url).hostname || "Destination";
  } catch {
    return "Destination";
  }
}
