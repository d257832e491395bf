import { createHmac } from "node:crypto";
import { SIGNING_SECRET_PREFIX } from "./signing.js";

export interface SignatureHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/** The HMAC key of a Standard Webhooks secret: its base64 part ("whsec_" prefix optional), decoded. */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : secret, "base64");
}

/**
 * base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")), over the raw body bytes:
 * never a re-serialised string, so binary bodies sign and verify too.
 */
export function standardWebhooksSignature(key: Buffer, id: string, timestamp: string, body: Uint8Array): string {
  return createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest("base64");
}

/** Standard Webhooks headers for an outbound delivery. */
export function signStandardWebhook(input: { id: string; timestampSeconds: number; body: Uint8Array; secret: string }): SignatureHeaders {
  const timestamp = String(Math.floor(input.timestampSeconds));
  const signature = standardWebhooksSignature(standardWebhooksKey(input.secret), input.id, timestamp, input.body);
  return { "webhook-id": input.id, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}` };
}
