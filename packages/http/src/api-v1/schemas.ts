import {
  ALERT_CHANNELS,
  ALERT_TRIGGERS,
  AUDIT_ACTIONS,
  AUDIT_ACTOR_TYPES,
  AUDIT_TARGET_TYPES,
  dedupRuleSchema,
  MAX_RATE_LIMIT_PER_SECOND,
  ROLES,
  DELIVERY_STATES,
  EVENT_STATUSES,
  EXPORT_FORMATS,
  HANDSHAKE_PROVIDERS,
  HMAC_ENCODINGS,
  MAX_OVERRIDE_HEADER_BYTES,
  MAX_OVERRIDE_HEADERS,
  MAX_OVERRIDE_PATH_LENGTH,
  MAX_OVERRIDE_QUERY_LENGTH,
  MAX_RESPONSE_BODY_BYTES,
  MAX_RESPONSE_DELAY_MS,
  MAX_RESPONSE_HEADERS,
  MAX_RETRY_ATTEMPTS,
  MAX_RETRY_DELAY_MS,
  MAX_RESOLUTION_NOTE_LENGTH,
  MIN_RETRY_DELAY_MS,
  REPLAY_TARGETS,
  safeText,
  SIGNATURE_REASONS,
  SIGNATURE_SCHEMES,
  SIGNATURE_STATUSES,
} from "@rehook/core";
import { eventContracts, MAX_PAUSE_AFTER_FAILURES, MAX_RETENTION_DAYS } from "@rehook/services";
import { z } from "zod";
import { restQuerySchema } from "./contract-route.js";
import { EVENT_LIST_WIRE } from "./cursor.js";
import { EVENT_BODY_EXAMPLE, EVENT_EXPORT_EXAMPLE } from "./openapi-example.js";

// The public API's contract: these schemas validate requests, shape responses, and are
// turned into the OpenAPI document (openapi.ts), so the three cannot drift apart.

const id = z.uuid();
const timestamp = z.iso.datetime();
const headerPairs = z.array(z.tuple([z.string(), z.string()])).describe("Headers as [name, value] pairs, in order, duplicates kept");

export const ErrorResponse = z.object({
  error: z.object({
    code: z.string().describe("Stable machine-readable code, e.g. validation_failed, unauthorized, not_found"),
    message: z.string(),
    details: z.unknown().optional().describe("For validation errors: the issues found"),
  }),
});

export const PageMeta = z.object({ total: z.int().min(0), limit: z.int().min(1), offset: z.int().min(0) });

/** The list's query: the events.list contract's input under its wire names (q, cursor), limit 20 by default. */
export const EventListQuery = restQuerySchema(eventContracts.listEventsContract, EVENT_LIST_WIRE);

export const EventSummary = z.object({
  id,
  endpoint_id: id,
  method: z.string(),
  path: z.string().describe("The sub-path after the capture URL"),
  source: z.string(),
  event_type: z.string(),
  status: z.enum(EVENT_STATUSES).describe("captured (nowhere to forward), pending, delivered, failed, or duplicate (a repeat found by the endpoint's dedup rule: stored, not forwarded)"),
  duplicate_of: id.nullable().describe("A duplicate: the first event with the same dedup key; null otherwise"),
  signature: z.enum(SIGNATURE_STATUSES).nullable().describe("What the endpoint's signature check found; null when it checks none"),
  signature_reason: z
    .enum(SIGNATURE_REASONS)
    .nullable()
    .describe(
      "Why the signature is not valid: missing_header (the signature, or the timestamp or id it signs, is absent), malformed (not in the scheme's format), stale_timestamp (signed more than 5 minutes from the server's clock), mismatch (another secret, or a changed body or URL), unsigned_body (Twilio: the body is not covered), bad_secret (the endpoint's saved rule can no longer be used); null when valid or not checked",
    ),
  latency_ms: z.int().nullable(),
  received_at: timestamp,
  resolved: z
    .boolean()
    .describe(
      "A failed event whose every failed delivery is resolved: by a later replay to that destination that delivered, or by a member who marked it resolved with a note (deliveries[].resolution says which). Its status stays failed. A replay to any other URL resolves nothing",
    ),
  resolved_by_replay: z.boolean().describe("Deprecated: the same value as resolved (the name of the preview's first, event-wide rule), kept for clients written against it"),
});

const DeliveryStatus = z
  .enum(DELIVERY_STATES)
  .describe(
    "pending: on its way (next_attempt_at says when it is tried again); paused: pending, but its destination's circuit breaker is open, so it waits until that destination is resumed (POST /endpoints/{id}/destinations/{destination_id}/resume); delivered; failed; filtered: the destination's filter left this event out",
  );

export const EventList = z.object({
  data: z.array(
    EventSummary.extend({
      deliveries: z
        .array(
          z.object({
            destination_id: id,
            name: z.string().nullable().describe("The destination's name now (null: removed since)"),
            status: DeliveryStatus,
            next_attempt_at: timestamp.nullable().describe("While pending: when its next attempt is due (null: now, or under way)"),
          }),
        )
        .describe("Each destination the event went to, or was filtered away from, and how that delivery stands (empty for duplicates and capture-only endpoints)"),
    }),
  ),
  meta: PageMeta.extend({
    total: z
      .int()
      .min(0)
      .describe(
        "Events that match. Exact for status and endpoint_id filters (kept as counts); with source, event_type or a time range, counted up to 10,000 (total_capped then says there are more)",
      ),
    total_capped: z.boolean().describe("total stopped counting: at 10,000, or with q at the end of the page"),
    next_cursor: z.string().nullable().describe("Pass as cursor for the next (older) page; null on the last page"),
  }),
});

export const EventDetail = EventSummary.extend({
  query: z.string().describe("The raw query string, without ?"),
  headers: headerPairs,
  payload: z.unknown().describe("The body: the parsed value for json, a string for utf8 and base64. Only its first 256 KiB when payload_truncated"),
  payload_encoding: z.enum(["json", "utf8", "base64"]),
  payload_truncated: z.boolean().describe("The body is longer than the payload shows: GET /events/{id}/body has all of it"),
  size_bytes: z.int().min(0).describe("The whole body's size in bytes"),
  response: z
    .object({
      status: z.int().nullable(),
      headers: headerPairs.nullable(),
      body: z.string().nullable(),
      body_encoding: z.enum(["utf8", "base64"]),
      latency_ms: z.int().nullable(),
    })
    .nullable()
    .describe(
      "An alias of the event's only delivery's last answer, when it went to exactly one destination (filtered ones aside); null until that forward finished, for capture-only endpoints, and whenever the event went to several destinations (each answer is then in deliveries[].attempts)",
    ),
  replay_count: z.int().min(0),
  attempts: z
    .array(
      z.object({
        attempt: z.int().min(1).describe("1 for the first attempt"),
        started_at: timestamp,
        latency_ms: z.int().min(0),
        response_status: z.int().nullable(),
        error: z.string().nullable(),
        outcome: z.enum(["delivered", "failed"]),
      }),
    )
    .describe(
      "An alias of the event's only delivery's attempts, first to last, when it went to exactly one destination (filtered ones aside); empty when it went to several (each destination's attempts are then in deliveries[].attempts). Replays are not attempts",
    ),
  next_attempt_at: timestamp.nullable().describe("While pending: when the next attempt is due (a scheduled retry, or now)"),
  deliveries: z
    .array(
      z.object({
        destination_id: id.nullable().describe("Null only for an event forwarded before routing whose destination was removed since (url says where it went)"),
        name: z.string().nullable().describe("The destination's name now (null: removed since)"),
        url: z.string().nullable().describe("The destination's URL now (null: removed since)"),
        status: DeliveryStatus,
        attempts: z.array(z.object({ attempt: z.int().min(1), started_at: timestamp, latency_ms: z.int().min(0), response_status: z.int().nullable(), error: z.string().nullable(), outcome: z.enum(["delivered", "failed"]) })),
        next_attempt_at: timestamp.nullable().describe("While pending or paused: when its next attempt is due (null: now, or under way)"),
        resolution: z
          .object({
            resolved_at: timestamp,
            by: z.enum(["replay", "member"]).describe("replay: a replay to this destination delivered; member: a member marked it resolved"),
            replay_id: id.nullable().describe("The replay attempt that delivered (by replay)"),
            user_id: id.nullable().describe("Who marked it (by member; null once that account is deleted)"),
            user_email: z.string().nullable().describe("Their email now (by member)"),
            note: z.string().nullable().describe("What they said was done (by member)"),
          })
          .nullable()
          .describe("A failed delivery made good since; null when it is not failed or not resolved"),
        filter_reason: z
          .enum(["no_match", "work_budget_exceeded"])
          .nullable()
          .describe(
            "Why it was filtered (null unless filtered): no_match, its filter left the event out; work_budget_exceeded, evaluating the capture's filters ran out of their work budget before this one could say, so it did not match",
          ),
      }),
    )
    .describe("Each destination the event went to, or was filtered away from, with its own attempts"),
  sender_response: z
    .object({
      status: z.int().describe("The HTTP status the sender was answered: 200 by default, the custom response's, or a provider handshake's 200 or 403"),
      delay_ms: z.int().min(0).describe("How long the answer was held (a custom response's delay)"),
    })
    .nullable()
    .describe("What Rehook answered the sender when it captured the event; null for events captured before answers were recorded"),
});

export const EventExportQuery = EventListQuery.pick({ status: true, endpoint_id: true, source: true, event_type: true, signature: true, received_after: true, received_before: true, q: true }).extend({
  format: z.enum(EXPORT_FORMATS).default("ndjson").describe("ndjson: one event per line; har: one HAR 1.2 document, one entry per event"),
});

export const EventExport = z
  .string()
  .meta({ contentMediaType: "application/x-ndjson", examples: [EVENT_EXPORT_EXAMPLE] })
  .describe(
    "Every matching event, newest first, streamed. ndjson: one JSON object per line (id, endpoint_id, method, path, query, headers as [name, value] pairs in order, content_type, source, event_type, status, signature, received_at, latency_ms, error, response {status, headers, body_base64, body_truncated} or null, body_base64). har (application/json): {log: {version: \"1.2\", creator, entries}}, one entry per event with the full capture URL; postData and response content are text, or base64 when not UTF-8 text (postData._encoding: \"base64\", HAR 1.2's content.encoding: \"base64\"); response status 0 when the destination gave no answer (its schema is the application/json one)",
  );

export const EventBody = z
  .string()
  .meta({ contentMediaType: "application/octet-stream", examples: [EVENT_BODY_EXAMPLE] })
  .describe("The body exactly as captured, every byte (served as application/octet-stream, as an attachment)");

// Shapes only: the limits and the rules for names and values are checked by core (parseReplayOverrides), with its sentences.
const ReplayOverrides = z
  .object({
    method: z.string().optional().describe("The method to send instead of the captured one (an HTTP token; not CONNECT, TRACE or TRACK)"),
    headers: z
      .array(z.tuple([z.string(), z.string()]))
      .optional()
      .describe(
        `Replace the whole header list: at most ${MAX_OVERRIDE_HEADERS} [name, value] pairs, ${MAX_OVERRIDE_HEADER_BYTES} bytes in all; names are HTTP tokens, values without CR, LF, NUL or other control characters. Hop-by-hop headers, Host and Content-Length are dropped as for any replay`,
      ),
    body: z.string().optional().describe("The body to send instead, as UTF-8 text (not with body_base64)"),
    body_base64: z.string().optional().describe("The body to send instead, as base64 bytes (not with body)"),
    path: z
      .string()
      .optional()
      .describe(
        `The sub-path to append to destination_url instead of none, as forwarding appends a captured one: "" or starting with "/", at most ${MAX_OVERRIDE_PATH_LENGTH} characters, without control characters, "?", "#" or "." and ".." segments`,
      ),
    query: z
      .string()
      .optional()
      .describe(`The query string to append to destination_url's (a leading "?" is dropped): at most ${MAX_OVERRIDE_QUERY_LENGTH} characters, without control characters or "#"`),
  })
  .strict()
  .describe("Edit-and-replay: each part given replaces the captured one for this attempt only; the event never changes");

export const ReplayRequest = z
  .object({
    destination_url: z.string().min(1).optional().describe("A URL to send the event to (http or https, publicly reachable): target custom, which it implies when target is left out"),
    destination_id: id
      .optional()
      .describe("One of the endpoint's destinations (GET /endpoints/{id}/destinations), with target original (implied when left out) or staging (its staging host on this destination's URL)"),
    target: z
      .enum(REPLAY_TARGETS)
      .optional()
      .describe(
        'original: the destination the event went to, when it went to one (several: 400, asking for destination_id, "matched" or "failed"); staging: the same on the endpoint\'s staging host; local: localhost:3000 (only where private addresses are allowed); custom: destination_url; matched: every destination the event matched, one attempt each; failed: each destination whose delivery failed and is not resolved, one attempt each. Left out: custom with destination_url, the destination with destination_id',
      ),
    overrides: ReplayOverrides.optional(),
  })
  .strict();

export const ReplayResponse = z.object({
  id,
  status: z.enum(["delivered", "failed"]),
  response_status: z.int().nullable(),
  latency_ms: z.int().nullable(),
  destination_url: z.string(),
  destination_id: id.nullable().describe("The endpoint destination it went to; null for a staging host, localhost or a custom URL"),
  replayed_at: timestamp,
  modified: z.boolean().describe("Sent with overrides (edit-and-replay); false for a plain replay"),
});

/** target matched or failed: one attempt per destination. */
export const ReplayAttemptsResponse = z.object({
  attempts: z.array(ReplayResponse).min(1).describe("One attempt per destination, in the endpoint's order of destinations"),
  event_resolved: z.boolean().describe("Every failed delivery of the event is resolved now (the event's resolved)"),
});

/** What POST /events/{id}/replay answers: one attempt, or (target matched or failed) one per destination. */
export const ReplayAnswer = z
  .union([ReplayResponse, ReplayAttemptsResponse])
  .describe("One replay attempt, as the spec has it; for target matched or failed, {attempts, event_resolved} with one attempt per destination");

export const ResolveDeliveryRequest = z
  .object({
    note: z.string().describe(`What was done about the failure (required, 1 to ${MAX_RESOLUTION_NOTE_LENGTH} characters): kept on the delivery and in the audit log`),
  })
  .strict();

export const ResolveDeliveryResponse = z.object({
  event_id: id,
  destination_id: id,
  resolved_at: timestamp,
  user_id: id,
  note: z.string(),
  event_resolved: z.boolean().describe("Every failed delivery of the event is resolved now (the event's resolved)"),
});

const keepProxyHeaders = z
  .boolean()
  .describe("Forward and replay the sender's X-Forwarded-*, Forwarded and X-Real-IP headers (default false: they are dropped)");

const retryPolicy = z
  .object({
    max_attempts: z.int().min(1).max(MAX_RETRY_ATTEMPTS).describe("Attempts in all, the first included"),
    initial_delay_ms: z.int().min(MIN_RETRY_DELAY_MS).describe("Wait after the first failed attempt; each later wait doubles (±20 % jitter)"),
    max_delay_ms: z.int().min(MIN_RETRY_DELAY_MS).max(MAX_RETRY_DELAY_MS).describe("The longest wait (at least initial_delay_ms)"),
  })
  .strict()
  .nullable()
  .describe(
    "Automatic retries of failed attempts; null: one attempt, a failure is final. A 429 or 503 with Retry-After waits what the destination asks, at most the larger of max_delay_ms and an hour",
  );

const pauseAfterFailures = z
  .int()
  .min(1)
  .max(MAX_PAUSE_AFTER_FAILURES)
  .nullable()
  .describe("Circuit breaker: pause forwarding after this many consecutive failed attempts (null: never)");

const retentionDays = z
  .int()
  .min(0)
  .max(MAX_RETENTION_DAYS)
  .nullable()
  .describe("Days its events are kept (0: for ever); null: the server's RETENTION_DAYS");

const secretHint = z.object({ set: z.literal(true), last4: z.string().describe("Its last four characters (empty for secrets under 12 characters)") });

const customResponse = z
  .object({
    status: z.int().describe("200 to 599"),
    headers: z.record(z.string(), z.string()).optional().describe(
        `At most ${MAX_RESPONSE_HEADERS}; values printable ASCII; not framing headers (Content-Length, Transfer-Encoding, Connection…), not headers that act on the origin (Set-Cookie, Clear-Site-Data, Service-Worker-Allowed, Link, Refresh, Content-Security-Policy, X-Content-Type-Options, Strict-Transport-Security, WWW-Authenticate, Content-Disposition…); Location only a path under /api/webhook/; Content-Type not HTML, XML, SVG, script or PDF`,
      ),
    body: z.string().optional().describe(`Text, at most ${MAX_RESPONSE_BODY_BYTES} bytes, without NUL or unpaired surrogates; {{event_id}} becomes the stored event's id`),
    delay_ms: z.int().optional().describe(`Wait this long after the event is stored before answering (0 to ${MAX_RESPONSE_DELAY_MS})`),
  })
  .nullable()
  .describe("What senders get back instead of 200 {\"received\": true, \"eventId\": …}; null: that default");

const handshakeInput = z
  .object({
    provider: z.enum(HANDSHAKE_PROVIDERS),
    token: z.string().optional().describe("Meta: the verify token (required). Zoom: the app's secret token (required). Slack: the verification token, checked when given. Left out on a change: the saved one is kept"),
  })
  .nullable()
  .describe("Answer the provider's URL check: Slack url_verification, Meta hub.challenge, Zoom endpoint.url_validation. The request is still stored");

const verificationInput = z
  .object({
    scheme: z.enum(SIGNATURE_SCHEMES),
    secret: z.string().optional().describe("The signing secret (never shown again). Left out on a change of the same scheme: the saved one is kept"),
    reject_invalid: z.boolean().optional().describe("Answer 401 and store nothing when the signature is invalid or missing (default false)"),
    header: z.string().optional().describe("hmac-sha256 only: the header carrying the signature"),
    encoding: z.enum(HMAC_ENCODINGS).optional().describe("hmac-sha256 only: hex (default) or base64"),
    prefix: z.string().optional().describe('hmac-sha256 only: text before the signature, like "sha256="'),
  })
  .nullable()
  .describe("Check each request's signature; every event records signature: valid, invalid or missing");

// Core's schema, so a refused rule is told in the same words as on the dashboard and the CLI.
const dedupRule = dedupRuleSchema
  .nullable()
  .describe(
    'Deduplication: a repeat within window_s seconds (1 to 604,800: 7 days) of a key\'s first event is stored and answered as usual, with status duplicate and duplicate_of, and is not forwarded. key: "auto" (the provider\'s own delivery id: webhook-id/svix-id, X-GitHub-Delivery, X-Shopify-Webhook-Id, Stripe\'s event id, Slack\'s event_id, …), {"header": NAME}, {"json": "dotted.path"}, or "body" (the exact bytes). With verification on, only an event whose signature is valid claims a key; one that is not valid is a duplicate only of a valid event. null: off',
  );

export const Endpoint = z.object({
  id,
  name: z.string(),
  slug: z.string(),
  webhook_url: z.string().describe("The capture URL: send webhooks here"),
  destination_url: z.string().nullable(),
  health: z.object({ state: z.enum(["healthy", "degraded", "unhealthy", "capturing"]), success_rate: z.number().min(0).max(1).nullable() }),
  keep_proxy_headers: keepProxyHeaders,
  retry_policy: retryPolicy,
  pause_after_failures: pauseAfterFailures,
  forwarding_paused: z.boolean().describe("The breaker tripped: events wait as pending until POST /endpoints/{id}/resume"),
  paused_reason: z.string().nullable(),
  paused_at: timestamp.nullable(),
  retention_days: retentionDays,
  kept_for_days: z.int().min(0).describe("How long its events are kept, in days, from retention_days or the server's default (0: for ever)"),
  response: customResponse.unwrap().extend({ headers: z.record(z.string(), z.string()), body: z.string(), delay_ms: z.int() }).nullable(),
  handshake: z.object({ provider: z.enum(HANDSHAKE_PROVIDERS), token: secretHint.nullable() }).nullable(),
  verification: z
    .object({
      scheme: z.enum(SIGNATURE_SCHEMES),
      reject_invalid: z.boolean(),
      secret: secretHint,
      header: z.string().optional(),
      encoding: z.enum(HMAC_ENCODINGS).optional(),
      prefix: z.string().optional(),
    })
    .nullable(),
  dedup: dedupRule,
  created_at: timestamp,
});

const routingFilter = z
  .unknown()
  .describe(
    'Which events the destination gets, in MongoDB query style over {method, path, query, headers, body} (header names lower-case; body parsed when it is JSON, else its text): $eq $ne $in $nin $gt $gte $lt $lte $exists $contains $startsWith $endsWith $and $or $not, a plain value meaning $eq, dotted paths into objects and arrays. At most 16 KiB and 8 levels deep; null: every event',
  );

export const Destination = z.object({
  id,
  name: z.string(),
  url: z.string().describe("Where its events go; the captured sub-path and query are appended"),
  enabled: z.boolean().describe("false: it gets no new events, and its pending deliveries wait"),
  filter: routingFilter.nullable(),
  rate_limit_per_second: z.int().min(1).max(MAX_RATE_LIMIT_PER_SECOND).nullable().describe("At most this many deliveries start per second, across all instances; the rest wait as pending (null: no limit)"),
  ordered: z.boolean().describe("Deliver one at a time in capture order: each waits until the previous one finally delivered or failed"),
  retry_policy: retryPolicy,
  pause_after_failures: pauseAfterFailures,
  consecutive_failures: z
    .int()
    .min(0)
    .describe(
      "Its circuit breaker's count: failed attempts in a row, retries included (a delivered attempt sets it to 0). With pause_after_failures set and this above 0, it gets one delivery at a time until one is delivered; it pauses at pause_after_failures, and the count then stands still, as paused_reason says. A resume keeps it: one delivery goes first, and a failure pauses it again one higher",
    ),
  forwarding_paused: z.boolean().describe("Its circuit breaker tripped: its deliveries wait as pending until POST …/destinations/{destination_id}/resume"),
  paused_reason: z.string().nullable(),
  created_at: timestamp,
});

export const DestinationList = z.object({ data: z.array(Destination) });

export const DestinationCreate = z
  .object({
    url: z.string(),
    name: z.string().optional().describe("Defaults to the URL's host"),
    enabled: z.boolean().optional(),
    filter: routingFilter.nullable().optional(),
    rate_limit_per_second: z.int().nullable().optional(),
    ordered: z.boolean().optional(),
    retry_policy: retryPolicy.optional(),
    pause_after_failures: pauseAfterFailures.optional(),
  })
  .strict();

export const DestinationPatch = DestinationCreate.partial().strict();

/** A listed endpoint: the endpoint with its event total and its newest event's time. */
export const EndpointListItem = Endpoint.extend({
  event_count: z.int().min(0).describe("Its stored events, exactly"),
  last_event_at: timestamp.nullable().describe("When its newest event was received; null before the first"),
});

export const EndpointList = z.object({ data: z.array(EndpointListItem), meta: PageMeta });

export const EndpointCreate = z
  .object({
    name: z.string(),
    destination_url: z.string().nullable().optional(),
    keep_proxy_headers: keepProxyHeaders.optional(),
    retry_policy: retryPolicy.optional(),
    pause_after_failures: pauseAfterFailures.optional(),
    retention_days: retentionDays.optional(),
    response: customResponse.optional(),
    handshake: handshakeInput.optional(),
    verification: verificationInput.optional(),
    dedup: dedupRule.optional(),
  })
  .strict();

/** The create body with every field optional: a PATCH changes only what it names. */
export const EndpointPatch = EndpointCreate.partial().strict();

const queuedWhilePaused = z.boolean().describe("The endpoint's forwarding is paused: queued, sent once it is resumed");

export const RetryEventResponse = z.object({
  id,
  status: z.literal("pending"),
  next_attempt_at: timestamp,
  forwarding_paused: queuedWhilePaused,
  message: z.string(),
});

export const RetryFailedResponse = z.object({
  count: z.int().min(0).describe("Failed events made due now"),
  forwarding_paused: queuedWhilePaused,
  message: z.string(),
});

export const StreamQuery = z.object({
  after: id.optional().describe("Resume after this event id (or send Last-Event-ID)"),
  local_replays: z
    .enum(["true", "false"])
    .transform((value) => value === "true")
    .optional()
    .describe(
      "true: this client forwards the dashboard's Local replays (rehook listen): they come as `event: replay` messages. Only for a key whose role may record local replays (developer); others get events only",
    ),
});

export const StreamedEvent = z.object({
  attempt_id: id.optional().describe("On `event: replay` messages only: the id to record the Local replay's result under (POST /events/{id}/local-replays)"),
  id,
  endpoint_id: id,
  method: z.string(),
  path: z.string(),
  query: z.string(),
  headers: headerPairs,
  body_base64: z.string().describe("The body bytes, base64"),
  source: z.string(),
  event_type: z.string(),
  received_at: timestamp,
});

export const LocalReplayRequest = z
  .object({
    status: z.int().min(0).max(999).nullable().describe("The local server's HTTP status; null when it could not be reached"),
    latency_ms: z.int().min(0),
    body: z.string().max(256 * 1024).nullable().optional(),
    error: z.string().max(2000).nullable().optional(),
    attempt_id: z
      .uuid()
      .optional()
      .describe("A UUID the caller chooses per attempt: the same record sent again (its answer lost) is stored once, and answered as stored"),
    via: z
      .enum(["browser", "listen"])
      .optional()
      .describe("How the request reached the caller's machine: rehook listen forwarded it, or a browser sent it. Default: listen (this API is called with a key)"),
    local_url: z
      .string()
      .max(2048)
      .optional()
      .describe("The http(s) URL actually requested (rehook listen: its --forward URL with the captured path and query). Without it: http://localhost:3000 and the path a replay to the first destination would use"),
  })
  .strict();

/** A recorded local attempt answers in the same shape as a replay. */
export const LocalReplayResponse = ReplayResponse;

/** GET /api/v1/team: the key's team and the role the key acts with. */
export const Team = z.object({
  id,
  name: z.string(),
  slug: z.string().describe("The team's short name, as the CLI's --team takes it"),
  role: z.enum(ROLES).describe("The role this key acts with: its own, and never more than its creator holds in the team"),
});

const auditParty = <Types extends readonly [string, ...string[]]>(types: Types) =>
  z.object({ type: z.enum(types), id: z.string().nullable(), name: z.string().nullable() });

export const AuditEntry = z.object({
  id,
  at: timestamp,
  actor: auditParty(AUDIT_ACTOR_TYPES).describe("Who acted: a user on the dashboard, an API key, the CLI, or the system (id and name null for the system)"),
  action: z.enum(AUDIT_ACTIONS),
  target: auditParty(AUDIT_TARGET_TYPES).describe("What the action was done to; its name as it was then"),
  changes: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('What changed, by field: {before, after}, or "changed" for a secret (never its value); or what the action carried (a replay\'s target)'),
  request_id: z.string().nullable().describe("The X-Request-Id the request was answered with (null for the CLI and the system)"),
  ip: z.string().nullable().describe("The client's address (null for the CLI and the system)"),
});

export const AuditLog = z.object({
  data: z.array(AuditEntry),
  meta: z.object({ limit: z.int().min(1), next_cursor: id.nullable().describe("Pass as cursor for the next (older) page; null on the last page") }),
});

/** An alert rule (admin keys): what it watches, where it sends, and how its last post went. */
export const AlertRule = z.object({
  id,
  name: z.string(),
  trigger: z.enum(ALERT_TRIGGERS),
  threshold: z.int().min(1).max(100).nullable().describe("Percent, for health_low and signature_invalid_rate; null for the others"),
  endpoint: z.object({ id, name: z.string() }).nullable().describe("The one endpoint it watches; null: every endpoint of the team"),
  channel: z.enum(ALERT_CHANNELS),
  target: z.string().describe("The channel's URL (a secret: whoever holds it can post there), or the email address"),
  secret: z.string().nullable().describe("The webhook channel's whsec_ secret: every alert it sends is signed with it (Standard Webhooks); null for other channels"),
  enabled: z.boolean(),
  paused_reason: z.string().nullable().describe("Why sending stopped (the channel is gone or refuses Rehook), until the rule is changed"),
  last_result: z.object({ at: timestamp, ok: z.boolean(), text: z.string() }).nullable().describe("The last post or test: when, whether it was delivered, what the channel said"),
  created_at: timestamp,
});

export const AlertRuleList = z.object({ data: z.array(AlertRule) });

export const AlertTest = z.object({ ok: z.boolean(), message: z.string().describe("How the channel answered, or the fix when it refused") });
