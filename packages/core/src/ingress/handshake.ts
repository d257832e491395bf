import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { isStorableText, UNSTORABLE_TEXT } from "../safe-text.js";
import type { RenderedResponse } from "./response.js";

/** Providers that check a URL by a challenge before they send it anything. */
export const HANDSHAKE_PROVIDERS = ["slack", "meta", "zoom"] as const;
export type HandshakeProvider = (typeof HANDSHAKE_PROVIDERS)[number];

/** An endpoint's answer to its provider's URL check; `token` is a shared secret (never shown again). */
export interface HandshakeRule {
  provider: HandshakeProvider;
  /** Slack: the app's verification token, checked when set. Meta: the verify token. Zoom: the secret token. */
  token?: string;
}

export const MAX_HANDSHAKE_TOKEN_LENGTH = 512;
/** Longest challenge echoed back: real ones are a few dozen characters. */
const MAX_CHALLENGE_LENGTH = 1024;
/** Handshake bodies are small JSON documents: larger bodies are never parsed. */
const MAX_HANDSHAKE_BODY_BYTES = 64 * 1024;

const tokenSchema = z
  .string("token must be text")
  .min(1, "token must not be empty")
  .max(MAX_HANDSHAKE_TOKEN_LENGTH, `token must be at most ${MAX_HANDSHAKE_TOKEN_LENGTH} characters`)
  .refine((token) => !/[\u0000-\u001f\u007f]/.test(token), "token must not contain control characters")
  .refine(isStorableText, `token ${UNSTORABLE_TEXT}`);

/** A handshake as given: `token` may be left out to keep the one saved (see the use case). */
export const handshakeInputSchema = z.object({
  provider: z.enum(HANDSHAKE_PROVIDERS, { message: `provider must be one of ${HANDSHAKE_PROVIDERS.join(", ")}` }),
  token: tokenSchema.optional(),
});

/** Meta and Zoom cannot be answered without a token; Slack's is optional. */
export function handshakeRuleProblem(rule: HandshakeRule): string | undefined {
  if (rule.provider !== "slack" && !rule.token) return `A ${rule.provider === "meta" ? "Meta handshake needs the verify token" : "Zoom handshake needs the app's secret token"} you entered in the provider's settings.`;
  return undefined;
}

/** The part of a captured request a handshake looks at. */
export interface HandshakeRequest {
  method: string;
  /** The query string without "?". */
  query: string;
  body: Buffer;
}

const TEXT = { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" };

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.byteLength === right.byteLength && timingSafeEqual(left, right);
}

function forbidden(message: string): RenderedResponse {
  return { status: 403, headers: { "content-type": "application/json" }, body: JSON.stringify({ error: { code: "forbidden", message } }) };
}

function jsonObject(body: Buffer): Record<string, unknown> | undefined {
  if (body.byteLength === 0 || body.byteLength > MAX_HANDSHAKE_BODY_BYTES || body[0] !== 0x7b /* { */) return undefined;
  try {
    const parsed: unknown = JSON.parse(body.toString("utf8"));
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const isChallenge = (value: unknown): value is string => typeof value === "string" && value.length > 0 && value.length <= MAX_CHALLENGE_LENGTH;

/** Slack Events API: a POST {"type": "url_verification", "challenge": …} is answered with the challenge. */
function slackAnswer(rule: HandshakeRule, request: HandshakeRequest): RenderedResponse | undefined {
  if (request.method !== "POST") return undefined;
  const body = jsonObject(request.body);
  if (body?.type !== "url_verification" || !isChallenge(body.challenge)) return undefined;
  if (rule.token && !(typeof body.token === "string" && sameText(body.token, rule.token))) return forbidden("The verification token does not match this endpoint's.");
  return { status: 200, headers: TEXT, body: body.challenge };
}

/** Meta (Facebook, Instagram, WhatsApp): GET ?hub.mode=subscribe&hub.verify_token=…&hub.challenge=… */
function metaAnswer(rule: HandshakeRule, request: HandshakeRequest): RenderedResponse | undefined {
  if (request.method !== "GET" || request.query === "") return undefined;
  const params = new URLSearchParams(request.query);
  const challenge = params.get("hub.challenge");
  if (params.get("hub.mode") !== "subscribe" || !isChallenge(challenge)) return undefined;
  const token = params.get("hub.verify_token");
  if (!rule.token || token === null || !sameText(token, rule.token)) return forbidden("The verify token does not match this endpoint's.");
  return { status: 200, headers: TEXT, body: challenge };
}

/** Zoom: a POST {"event": "endpoint.url_validation", "payload": {"plainToken": …}} gets the token and its HMAC-SHA256 under the secret token. */
function zoomAnswer(rule: HandshakeRule, request: HandshakeRequest): RenderedResponse | undefined {
  if (request.method !== "POST" || !rule.token) return undefined;
  const body = jsonObject(request.body);
  const payload = body?.payload as Record<string, unknown> | undefined;
  if (body?.event !== "endpoint.url_validation" || typeof payload !== "object" || payload === null || !isChallenge(payload.plainToken)) return undefined;
  const encryptedToken = createHmac("sha256", rule.token).update(payload.plainToken).digest("hex");
  return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ plainToken: payload.plainToken, encryptedToken }) };
}

const ANSWERS: Record<HandshakeProvider, (rule: HandshakeRule, request: HandshakeRequest) => RenderedResponse | undefined> = {
  slack: slackAnswer,
  meta: metaAnswer,
  zoom: zoomAnswer,
};

/** The answer to a provider's URL check, or undefined when the request is not one (it is answered as usual). */
export function handshakeAnswer(rule: HandshakeRule, request: HandshakeRequest): RenderedResponse | undefined {
  return ANSWERS[rule.provider](rule, request);
}

/**
 * Meta signs its events but never its subscription check (a GET): with reject_invalid, that
 * check is let through on its verify token instead, and only when the token matches.
 */
export function handshakeVouchesFor(rule: HandshakeRule | null, request: HandshakeRequest): boolean {
  if (rule?.provider !== "meta" || !rule.token || request.method !== "GET") return false;
  const params = new URLSearchParams(request.query);
  const token = params.get("hub.verify_token");
  return params.get("hub.mode") === "subscribe" && token !== null && sameText(token, rule.token);
}
