import { DELIVERY_STATES, EVENT_STATUSES, MAX_SEARCH_LENGTH, safeText, SIGNATURE_REASONS, SIGNATURE_STATUSES } from "@rehook/core";
import { MAX_EVENT_OFFSET } from "@rehook/db";
import { z } from "zod";

// The events' inputs and outputs, once: the use cases parse with them and the contracts
// (contracts/events.ts) hand them to tRPC, REST, the CLI and OpenAPI. Messages name the
// public API's field names (endpoint_id, q), which the dashboard never gets wrong.

// Filter texts reach PostgreSQL as parameters: NUL or a lone surrogate is refused (safeText), not a failed statement.
const filterText = () => safeText().min(1).max(200);

/** What the list, the export and the live feed filter on. */
export const eventFilterFields = {
  status: z.enum(EVENT_STATUSES).optional(),
  endpointId: z.uuid().optional(),
  source: filterText().optional().describe("Only events from this sender, e.g. stripe"),
  eventType: filterText().optional().describe("Only events of this type, e.g. invoice.paid"),
  signature: z.enum(SIGNATURE_STATUSES).optional().describe("Only events whose signature check found this (endpoints with verification)"),
  receivedAfter: z.date().optional().describe("Only events received at or after this time"),
  receivedBefore: z.date().optional().describe("Only events received before this time"),
  search: safeText()
    .min(1)
    .max(MAX_SEARCH_LENGTH)
    .optional()
    .describe(
      "Text the body (its first 64 KiB) or the headers (names and values) contain; ASCII letters match in either case. Searches the last 24 hours unless received_after says otherwise; total then counts only up to the page",
    ),
  /** Leave out resolved failed events: every failed delivery resolved (the dashboard's "Hide resolved"). */
  unresolved: z.boolean().optional(),
};

export const eventFilterInput = z.object(eventFilterFields);
export type EventFilterInput = z.input<typeof eventFilterInput>;

export const listEventsInput = z
  .object({
    ...eventFilterFields,
    before: z.uuid("the cursor is not one this server gave").optional().describe("The last event id of the previous page: the next (older) page, stable while new events arrive"),
    limit: z.number().int().min(1).max(100).default(50),
    offset: z
      .number()
      .int()
      .min(0)
      .max(MAX_EVENT_OFFSET, `offset is at most ${MAX_EVENT_OFFSET}: page deeper with cursor (meta.next_cursor)`)
      .default(0)
      .describe(`At most ${MAX_EVENT_OFFSET}; use cursor for deeper pages`),
    /** Count the matches too (the API's meta.total). */
    withTotal: z.boolean().default(false),
  })
  .refine((input) => input.offset === 0 || input.before === undefined, { message: "give either offset or cursor, not both" });

export type ListEventsInput = z.input<typeof listEventsInput>;

const headerList = z.array(z.tuple([z.string(), z.string()]));

export const eventSummary = z.object({
  id: z.string(),
  endpointId: z.string(),
  endpointName: z.string(),
  method: z.string(),
  path: z.string(),
  query: z.string(),
  sizeBytes: z.number(),
  source: z.string(),
  eventType: z.string(),
  status: z.enum(EVENT_STATUSES),
  signature: z.enum(SIGNATURE_STATUSES).nullable(),
  /** Why the signature is not valid (see signatureReasonText). */
  signatureReason: z.enum(SIGNATURE_REASONS).nullable(),
  latencyMs: z.number().nullable(),
  responseStatus: z.number().nullable(),
  receivedAt: z.date(),
  nextAttemptAt: z.date().nullable(),
  /** Failed, and every failed delivery resolved since (by a replay to its destination, or by a member): its status stays failed. */
  resolved: z.boolean(),
  /** A duplicate: the first event with the same dedup key. */
  duplicateOf: z.string().nullable(),
  /**
   * Each destination it was routed to or filtered away from, and how that delivery stands (core's
   * deliveryState: paused is a pending delivery held by its paused destination).
   */
  deliveries: z.array(
    z.object({
      destinationId: z.string(),
      name: z.string().nullable(),
      status: z.enum(DELIVERY_STATES),
      /** While pending: when its next attempt is due (null: now, or under way). */
      nextAttemptAt: z.date().nullable(),
    }),
  ),
});

export const eventPage = z.object({
  events: z.array(eventSummary),
  /** Pass as `before` for the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
  /** With `withTotal`: how many match; `capped` when counting stopped at the cap. */
  total: z.object({ value: z.number(), capped: z.boolean() }).optional(),
});
export type EventPage = z.infer<typeof eventPage>;

export const deliveryAttemptSummary = z.object({
  /** The destination it went to (null: one removed since that predates routing; destinationUrl says where it went). */
  destinationId: z.string().nullable(),
  /** That destination's name now (null: removed since). */
  destinationName: z.string().nullable(),
  /** That destination's URL now, or where a removed pre-routing one was (null: removed since). */
  destinationUrl: z.string().nullable(),
  attempt: z.number(),
  startedAt: z.date(),
  latencyMs: z.number(),
  responseStatus: z.number().nullable(),
  error: z.string().nullable(),
  outcome: z.enum(["delivered", "failed"]),
});

/** The event on its way to one destination (or filtered away from it). */
export const eventDelivery = z.object({
  /** Null only for an event forwarded before routing whose destination is gone: `url` is where it went. */
  destinationId: z.string().nullable(),
  /** The destination's name and URL now (null: deleted since). */
  name: z.string().nullable(),
  url: z.string().nullable(),
  /** core's deliveryState: paused is pending, held until its destination is resumed. */
  status: z.enum(DELIVERY_STATES),
  attempts: z.number(),
  nextAttemptAt: z.date().nullable(),
  /** Filtered: its filter said no, or the capture's filter work budget ran out first (null unless filtered). */
  filterReason: z.enum(["no_match", "work_budget_exceeded"]).nullable(),
  /** A failed delivery made good since: by a delivered replay to this destination, or by a member with a note (null: not resolved). */
  resolution: z
    .object({ at: z.date(), replayId: z.string().nullable(), userId: z.string().nullable(), userEmail: z.string().nullable(), note: z.string().nullable() })
    .nullable(),
});

const bytes = z.instanceof(Uint8Array);

/** One event as the dashboard and the API show it: the stored detail, the destination's answer grouped. */
export const eventView = eventSummary.extend({
  headers: headerList,
  /** The body, or its first PAYLOAD_PREVIEW_BYTES (cut before a split UTF-8 character) when `bodyTruncated`. */
  body: bytes,
  bodyTruncated: z.boolean(),
  contentType: z.string().nullable(),
  clientIp: z.string().nullable(),
  destinationUrl: z.string().nullable(),
  forwardedAt: z.date().nullable(),
  completedAt: z.date().nullable(),
  error: z.string().nullable(),
  endpointSlug: z.string(),
  replayCount: z.number(),
  response: z
    .object({
      status: z.number().nullable(),
      headers: headerList.nullable(),
      body: bytes.nullable(),
      truncated: z.boolean(),
      latencyMs: z.number().nullable(),
      error: z.string().nullable(),
    })
    .nullable(),
  /** Every recorded attempt to forward it, first to last. */
  attempts: z.array(deliveryAttemptSummary),
  /** Where it went: one entry per destination it was routed to or filtered away from. */
  deliveries: z.array(eventDelivery),
  /** What the sender was answered: the status and the delay before it (null: captured before answers were recorded). */
  senderResponse: z.object({ status: z.number(), delayMs: z.number() }).nullable(),
});
export type EventView = z.infer<typeof eventView>;

/** An event named by its id (the REST path's {id}). */
export const eventIdInput = z.object({ id: z.string() });
