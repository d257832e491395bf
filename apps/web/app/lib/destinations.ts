/**
 * An endpoint's destinations on the dashboard: the Destinations form read back into a
 * destinations.create or destinations.update input, and how a destination's settings read.
 * The limits are repeated from core's routing modules (which the browser bundle does not
 * import); the server checks every value and says what is wrong with it.
 */

import type { RouterInputs, RouterOutputs } from "@rehook/api";
import { plural } from "./format";
import { describePolicy, readRetryForm } from "./retries";

export type Destination = RouterOutputs["destinations"]["list"][number];
export type DestinationInput = Omit<RouterInputs["destinations"]["create"], "endpointId">;

/** Destinations one endpoint forwards to at most (core's MAX_DESTINATIONS_PER_ENDPOINT). */
export const MAX_DESTINATIONS = 20;
/** The highest rate limit, in deliveries started per second (core's MAX_RATE_LIMIT_PER_SECOND). */
export const MAX_RATE_LIMIT = 10_000;
/** A filter's JSON text at most, in bytes (core's MAX_FILTER_BYTES). */
export const MAX_FILTER_BYTES = 16 * 1024;

/** The filter textarea's text as a filter: null when blank (every event), or why it is not JSON. */
export function parseFilterText(text: string): { ok: true; filter: unknown } | { ok: false; error: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: true, filter: null };
  try {
    return { ok: true, filter: JSON.parse(trimmed) as unknown };
  } catch (error) {
    const detail = error instanceof Error ? error.message : "it could not be read";
    return { ok: false, error: `The filter is not valid JSON: ${detail}` };
  }
}

/** A stored filter as the textarea shows it: indented JSON, or blank for every event. */
export function filterText(filter: unknown): string {
  return filter === null || filter === undefined ? "" : JSON.stringify(filter, null, 2);
}

/** A filter in one line for the list ("all events" without one). */
export function filterSummary(filter: unknown): string {
  return filter === null || filter === undefined ? "All events" : JSON.stringify(filter);
}

/** "10 per second" or "No limit". */
export function rateLimitText(rate: number | null): string {
  return rate === null ? "No limit" : `${rate.toLocaleString("en-US")} per second`;
}

/** The retry policy and the breaker in one line. */
export function retriesText(destination: Pick<Destination, "retryPolicy" | "pauseAfterFailures">): string {
  const policy = describePolicy(destination.retryPolicy);
  return destination.pauseAfterFailures === null ? policy : `${policy} Pauses after ${plural(destination.pauseAfterFailures, "failed attempt")} in a row.`;
}

export type DestinationFormRead = { ok: true; input: DestinationInput } | { ok: false; error: string };

/**
 * The Destinations form (add or edit) as the procedure's input, or the first thing wrong
 * with it. A blank name is left out (the server names a new destination after its host and
 * keeps an edited one's); a blank filter is null (every event); a blank rate limit is none.
 */
export function readDestinationForm(form: FormData): DestinationFormRead {
  const url = String(form.get("url") ?? "").trim();
  if (url === "") return { ok: false, error: "Enter the destination URL." };
  const name = String(form.get("name") ?? "").trim();
  const filter = parseFilterText(String(form.get("filter") ?? ""));
  if (!filter.ok) return filter;
  const rateText = String(form.get("rateLimitPerSecond") ?? "").trim();
  let rateLimitPerSecond: number | null = null;
  if (rateText !== "") {
    if (!/^\d+$/.test(rateText) || Number(rateText) < 1 || Number(rateText) > MAX_RATE_LIMIT) {
      return { ok: false, error: `The rate limit must be a whole number of deliveries per second from 1 to ${MAX_RATE_LIMIT.toLocaleString("en-US")}, or blank for none.` };
    }
    rateLimitPerSecond = Number(rateText);
  }
  const retries = readRetryForm(form);
  if (!retries.ok) return retries;
  return {
    ok: true,
    input: {
      url,
      ...(name ? { name } : {}),
      filter: filter.filter as DestinationInput["filter"],
      rateLimitPerSecond,
      ordered: form.get("ordered") !== null,
      retryPolicy: retries.retryPolicy,
      pauseAfterFailures: retries.pauseAfterFailures,
    },
  };
}
