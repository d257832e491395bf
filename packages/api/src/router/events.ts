import { z } from "zod";
import { curlCommand, describePayload, EVENT_STATUSES, webhookUrl } from "@rehook/core";
import { getEvent, listEvents, liveEvents } from "@rehook/services";
import { protectedProcedure, router } from "../trpc.js";

const filter = z.object({
  endpointId: z.string().optional(),
  status: z.enum(EVENT_STATUSES).optional(),
});

export const eventsRouter = router({
  list: protectedProcedure
    .input(filter.extend({ before: z.string().optional(), limit: z.number().optional() }))
    .query(({ ctx, input }) => listEvents(ctx.services, { userId: ctx.user.id, ...input })),

  /** One event with its body ready to show: JSON, text or a hex dump, and a curl command. */
  get: protectedProcedure.input(z.object({ id: z.string() })).query(async ({ ctx, input }) => {
    const { body, response, ...event } = await getEvent(ctx.services, { userId: ctx.user.id, eventId: input.id });
    const captureUrl = `${webhookUrl(ctx.services.baseUrl, event.endpointSlug)}${event.path}${event.query ? `?${event.query}` : ""}`;
    return {
      ...event,
      bodyBase64: Buffer.from(body).toString("base64"),
      payload: describePayload(body, event.contentType),
      curl: curlCommand({ method: event.method, url: captureUrl, headers: event.headers, body }),
      response: response && {
        ...response,
        body: undefined,
        bodyBase64: response.body ? Buffer.from(response.body).toString("base64") : null,
        payload: response.body ? describePayload(response.body, null) : null,
      },
    };
  }),

  /** New events and status changes, pushed over server-sent events as they happen. */
  live: protectedProcedure.input(filter).subscription(async function* ({ ctx, input, signal }) {
    yield* liveEvents(ctx.services, { userId: ctx.user.id, filter: input, signal: signal ?? new AbortController().signal });
  }),
});
