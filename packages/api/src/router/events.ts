import { z } from "zod";
import { ACTIVITY_RANGES, curlCommand, describePayload, EVENT_STATUSES, forwardTarget, rawBodyFileName, SIGNATURE_STATUSES, webhookUrl } from "@rehook/core";
import { captureBaseOf, compareResponses, contentEncodingOf, deleteEvent, eventActivity, getEvent, getEventAttempt, inspectEventBody, listEventResponses, listEvents, openLiveEvents, retryEvent } from "@rehook/services";
import { protectedProcedure, router } from "../trpc.js";

const filter = z.object({
  endpointId: z.string().optional(),
  status: z.enum(EVENT_STATUSES).optional(),
  source: z.string().optional(),
  eventType: z.string().optional(),
  signature: z.enum(SIGNATURE_STATUSES).optional(),
  receivedAfter: z.date().optional(),
  receivedBefore: z.date().optional(),
  search: z.string().optional(),
  unresolved: z.boolean().optional(),
});

export const eventsRouter = router({
  /** Deletes the event with its attempts and replays. */
  delete: protectedProcedure.input(z.object({ id: z.string() })).mutation(async ({ ctx, input }) => {
    await deleteEvent(ctx.services, { userId: ctx.user.id, eventId: input.id });
    return null;
  }),

  /** Volume across all of the user's endpoints (the Activity page's strip): the same series as endpoints.activity. */
  volume: protectedProcedure
    .input(z.object({ range: z.enum(ACTIVITY_RANGES) }))
    .query(({ ctx, input }) => eventActivity(ctx.services, { userId: ctx.user.id, range: input.range })),

  list: protectedProcedure
    .input(filter.extend({ before: z.string().optional(), limit: z.number().optional() }))
    .query(({ ctx, input }) => listEvents(ctx.services, { userId: ctx.user.id, ...input })),

  /**
   * One event with its body ready to show: JSON, text or a hex dump (`payload`), the payload
   * inspector's view (`body`: the text exactly, multipart parts, a Content-Encoding undone),
   * and a curl command. A body over the preview size comes as its first bytes
   * (`bodyTruncated`, `sizeBytes` the whole); /api/events/{id}/body downloads all of it.
   */
  get: protectedProcedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const { body, response, ...event } = await getEvent(ctx.services, { userId: ctx.user.id, eventId: input.id });
    const captureUrl = `${webhookUrl(captureBaseOf(ctx.services), event.endpointSlug)}${event.path}${event.query ? `?${event.query}` : ""}`;
    const request = { method: event.method, url: captureUrl, headers: event.headers };
    const inspected = await inspectEventBody({ body, bodyTruncated: event.bodyTruncated, contentType: event.contentType, headers: event.headers });
    const fileName = rawBodyFileName(event.id, event.contentType, contentEncodingOf(event.headers));
    return {
      ...event,
      /** The URL a forward of this event requests (the destination with the captured sub-path and query), or why none is made. */
      forwardTarget: event.destinationUrl ? forwardTarget(event.destinationUrl, event.path, event.query) : null,
      payload: describePayload(body, event.contentType),
      body: inspected,
      /** Bytes of the body that `payload` shows (all of them unless bodyTruncated). */
      bodyPreviewBytes: body.byteLength,
      /** The name /api/events/{id}/body saves the whole body under. */
      bodyFileName: fileName,
      /** The capture URL the event came to (path and query included): where `curl` sends it. */
      captureUrl,
      // A cut body would make a wrong request: the command reads the downloaded file instead.
      curl: event.bodyTruncated
        ? `${curlCommand({ ...request, body: new Uint8Array() })} \\\n  --data-binary @${fileName}`
        : curlCommand({ ...request, body }),
      response: response && {
        ...response,
        body: undefined,
        bodyBase64: response.body ? Buffer.from(response.body).toString("base64") : null,
        payload: response.body ? describePayload(response.body, null) : null,
      },
    };
  }),

  /** The event's responses that can be compared: its delivery attempts, then its replays, oldest first. */
  responses: protectedProcedure.input(z.object({ id: z.string() })).query(({ ctx, input }) => listEventResponses(ctx.services, { userId: ctx.user.id, eventId: input.id })),

  /** Two of the event's responses side by side; `left`/`right` are "delivery:<attempt>" or "replay:<replay id>". */
  compare: protectedProcedure
    .input(z.object({ id: z.string(), left: z.string().max(200), right: z.string().max(200) }))
    .query(({ ctx, input }) => compareResponses(ctx.services, { userId: ctx.user.id, eventId: input.id, left: input.left, right: input.right })),

  /** One delivery attempt with the destination's headers and the start of its body (the attempt timeline). */
  attempt: protectedProcedure.input(z.object({ eventId: z.string(), attempt: z.number().int().min(1).max(2_147_483_647) })).query(async ({ ctx, input }) => {
    const { responseBody, ...attempt } = await getEventAttempt(ctx.services, { userId: ctx.user.id, eventId: input.eventId, attempt: input.attempt });
    return {
      ...attempt,
      bodyBase64: responseBody ? Buffer.from(responseBody).toString("base64") : null,
      payload: responseBody ? describePayload(responseBody, null) : null,
    };
  }),

  /** Retry now: a new attempt of the event itself, due at once (queued, not sent, while its endpoint is paused). */
  retry: protectedProcedure.input(z.object({ id: z.string() })).mutation(({ ctx, input }) => retryEvent(ctx.services, { userId: ctx.user.id, eventId: input.id })),

  /** New events and status changes, pushed over server-sent events as they happen. */
  live: protectedProcedure.input(filter).subscription(({ ctx, input, signal }) =>
    // Opened before tRPC starts the stream, so too many open streams ends it with TOO_MANY_REQUESTS
    // (sent as an error event on the stream: tRPC has already answered 200 by then).
    openLiveEvents(ctx.services, { userId: ctx.user.id, filter: input, signal: signal ?? new AbortController().signal }),
  ),
});
