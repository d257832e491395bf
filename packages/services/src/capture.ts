import { detectSender, headerValue, uuidv7, uuidv7Timestamp, type EventStatus, type HeaderList } from "@rehook/core";
import type { ServiceContext } from "./context.js";

export interface CaptureInput {
  slug: string;
  method: string;
  subPath: string;
  query: string;
  headers: HeaderList;
  body: Buffer;
  clientIp: string | null;
}

export type CaptureOutcome =
  | { kind: "accepted"; eventId: string; status: EventStatus }
  | { kind: "not_found" };

/**
 * Stores one captured request. Resolves "accepted" only once its row is committed;
 * rejects when the database could not take it (the caller answers 503, never 200).
 */
export async function captureRequest(ctx: Pick<ServiceContext, "writer" | "forwarder">, input: CaptureInput): Promise<CaptureOutcome> {
  const { source, eventType } = detectSender({ headers: input.headers, body: input.body });
  const eventId = uuidv7();
  const result = await ctx.writer.write({
    id: eventId,
    slug: input.slug,
    // The id's own time: events are partitioned and filtered by id ranges, so the two must agree.
    receivedAt: uuidv7Timestamp(eventId),
    method: input.method,
    path: input.subPath,
    query: input.query,
    headers: input.headers,
    body: input.body,
    contentType: headerValue(input.headers, "content-type") ?? null,
    clientIp: input.clientIp,
    source,
    eventType,
  });
  if (result.kind !== "stored") return { kind: "not_found" };
  const { destinationUrl, signRequests, secret, keepProxyHeaders, retryPolicy } = result.forwarding;
  if (result.leased && destinationUrl) {
    ctx.forwarder?.deliverLeased({
      id: eventId,
      endpointId: result.endpointId,
      method: input.method,
      path: input.subPath,
      query: input.query,
      headers: input.headers,
      body: input.body,
      destinationUrl,
      signRequests,
      secret,
      keepProxyHeaders,
      // Stored with its first claim already counted (see the writer's fast path).
      attempt: 1,
      retryPolicy,
    });
  }
  return { kind: "accepted", eventId, status: result.status };
}
