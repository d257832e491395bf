import {
  dedupKey,
  handshakeAnswer,
  handshakeVouchesFor,
  headerValue,
  renderCustomResponse,
  uuidv7,
  uuidv7Timestamp,
  webhookUrl,
  withoutSessionCookie,
  type EventStatus,
  type HeaderList,
  type RenderedResponse,
  type SignatureReason,
  type SignatureStatus,
  type SenderIdentity,
} from "@rehook/core";
import type { CaptureWriteResult, EndpointIngress } from "@rehook/db";
import type { ServiceContext } from "./context.js";
import { ruleOf, type KnownRule } from "./ingress-rules.js";
import { routeCapture, senderOf } from "./capture-routing.js";

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
  /** Stored. `answer`: what the endpoint answers instead of the default, after `delayMs`. */
  | { kind: "accepted"; eventId: string; status: EventStatus; answer?: RenderedResponse; delayMs: number; duplicateOf?: string }
  /** Not stored: the endpoint rejects requests without a valid signature. */
  | { kind: "rejected"; signature: Exclude<SignatureStatus, "valid">; reason: SignatureReason }
  | { kind: "not_found" };

/** A rule change between the check and the write sends the request round again; more than this many in a row is a bug. */
const MAX_RECHECKS = 3;

type CaptureContext = Pick<ServiceContext, "writer" | "forwarder" | "ingressRules" | "capturePool" | "baseUrl" | "captureBaseUrl" | "now">;

/**
 * Stores one captured request. Resolves "accepted" only once its row is committed;
 * rejects when the database could not take it (the caller answers 503, never 200).
 * An endpoint that checks signatures has the request checked first (see IngressRules).
 */
export async function captureRequest(ctx: CaptureContext, received: CaptureInput): Promise<CaptureOutcome> {
  // The dashboard's session cookie is never stored, checked or forwarded (see withoutSessionCookie).
  const headers = withoutSessionCookie(received.headers);
  const input = headers === received.headers ? received : { ...received, headers };
  const eventId = uuidv7();
  let rule = ctx.ingressRules?.get(input.slug);
  let sender: SenderIdentity | undefined;
  for (let round = 0; ; round += 1) {
    const check = rule?.verify ? rule.verify(signedRequest(ctx, input)) : null;
    if (rule?.rejectInvalid && check !== null && check.status !== "valid" && !handshakeVouchesFor(rule.handshake, input)) {
      return { kind: "rejected", signature: check.status, reason: check.reason };
    }
    // Only after the signature check: a refused request spends no worker time. Awaited only when the worker has it.
    if (!sender) {
      const found = senderOf(ctx, input);
      sender = found instanceof Promise ? await found : found;
    }
    const { source, eventType } = sender;
    const routed = rule ? routeCapture(ctx, rule, input) : null;
    const routing = routed instanceof Promise ? await routed : routed;
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
      // Without a rule, no version: the statement stores the row while the endpoint still checks
      // nothing (the common case, and the smallest row), and sends it back for a check if it now does.
      verificationVersion: rule && (rule.verify || rule.dedup || rule.filters.length > 0) ? rule.version : null,
      signature: check?.status ?? null,
      signatureReason: check?.reason ?? null,
      dedupKey: rule?.dedup ? dedupKey(rule.dedup, { headers: input.headers, body: input.body, source }) : null,
      matched: routing?.matched ?? [],
      filtersCutShort: routing?.cutShort ?? [],
    });
    if (result.kind === "unknown_endpoint") return { kind: "not_found" };
    const learnt = learn(ctx, input.slug, result.endpointId, result.ingress);
    if (result.kind === "recheck") {
      if (round >= MAX_RECHECKS) throw new Error(`the signature rule of ${input.slug} kept changing while a capture was checked`);
      rule = learnt;
      continue;
    }
    deliverAtOnce(ctx, eventId, input, result);
    const answer = answerOf(result.ingress, input, eventId);
    if (answer.handshake) await recordHandshakeAnswer(ctx, eventId, answer.handshake.status);
    const duplicate = result.duplicateOf ? { duplicateOf: result.duplicateOf } : {};
    return { kind: "accepted", eventId, status: result.status, answer: answer.handshake ?? answer.custom, delayMs: answer.delayMs, ...duplicate };
  }
}

/**
 * The row was stored with the custom response's (or the default) answer; a handshake's is
 * recorded before it is sent. A failure here must not turn a stored event into a 503: the
 * sender still gets the handshake's answer, and the event shows the one it was stored with.
 */
async function recordHandshakeAnswer(ctx: CaptureContext, eventId: string, status: number): Promise<void> {
  try {
    await ctx.writer.recordHandshakeAnswer(eventId, status);
  } catch {
    // See above: the event is stored, which is what its sender is told.
  }
}

function learn(ctx: CaptureContext, slug: string, endpointId: string, ingress: EndpointIngress): KnownRule {
  return ctx.ingressRules?.learn(slug, endpointId, ingress) ?? ruleOf(endpointId, ingress);
}

function signedRequest(ctx: CaptureContext, input: CaptureInput) {
  const url = webhookUrl(calledBase(ctx, input.headers), input.slug) + input.subPath + (input.query ? `?${input.query}` : "");
  return { method: input.method, headers: input.headers, body: input.body, url, nowSeconds: Math.floor((ctx.now?.() ?? Date.now()) / 1000) };
}

/**
 * The base of the URL the sender called (Twilio signs it): BASE_URL's when the request came to
 * its host (a sender set up before CAPTURE_BASE_URL was), else CAPTURE_BASE_URL's.
 */
function calledBase(ctx: CaptureContext, headers: HeaderList): string {
  if (!ctx.captureBaseUrl) return ctx.baseUrl;
  return headerValue(headers, "host")?.toLowerCase() === new URL(ctx.baseUrl).host ? ctx.baseUrl : ctx.captureBaseUrl;
}

/** A provider's URL check gets its handshake answer; anything else the custom response, if any. */
function answerOf(ingress: EndpointIngress, input: CaptureInput, eventId: string): { handshake?: RenderedResponse; custom?: RenderedResponse; delayMs: number } {
  const handshake = ingress.handshake && handshakeAnswer(ingress.handshake, input);
  if (handshake) return { handshake, delayMs: 0 };
  if (ingress.customResponse) return { custom: renderCustomResponse(ingress.customResponse, eventId), delayMs: ingress.customResponse.delayMs };
  return { delayMs: 0 };
}

/** Hands the deliveries the statement leased to this instance to the dispatcher; wakes its claims for the others. */
function deliverAtOnce(ctx: CaptureContext, eventId: string, input: CaptureInput, result: Extract<CaptureWriteResult, { kind: "stored" }>): void {
  const { signRequests, secret, keepProxyHeaders, routes, leasedAt } = result.forwarding;
  for (const route of routes) {
    if (!route.leased) continue;
    ctx.forwarder?.deliverLeased({
      id: eventId,
      endpointId: result.endpointId,
      method: input.method,
      path: input.subPath,
      query: input.query,
      headers: input.headers,
      body: input.body,
      destinationId: route.id,
      destinationUrl: route.url,
      signRequests,
      secret,
      keepProxyHeaders,
      // Stored with its first claim already counted (see the writer's fast path).
      attempt: 1,
      // An only delivery is leased on the event row, with no delivery row yet (see the writer).
      heldOn: routes.length === 1 ? "event" : "delivery",
      probe: false,
      takenAt: leasedAt,
      retryPolicy: route.retryPolicy,
      ratePerSecond: null,
      breaker: route.breaker,
      otherDeliveries: routes.length > 1,
    });
  }
  // Paced and ordered destinations are claimed from the database: this one may claim them now.
  if (routes.some((route) => !route.leased)) ctx.forwarder?.claimSoon();
}
