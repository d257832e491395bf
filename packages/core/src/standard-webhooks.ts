import { createHmac } from "node:crypto";
import { SIGNING_SECRET_PREFIX } from "./signing.js";

export interface SignatureHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * Standard Webhooks signature over the raw body bytes:
 * base64(HMAC-SHA256(key, "{id}.{timestamp}.{body}")), key = the secret's base64 part decoded.
 * Signed as bytes, never as a re-serialised string, so binary bodies verify too.
 */
export function signStandardWebhook(input: { id: string; timestampSeconds: number; body: Uint8Array; secret: string }): SignatureHeaders {
  const key = Buffer.from(input.secret.startsWith(SIGNING_SECRET_PREFIX) ? input.secret.slice(SIGNING_SECRET_PREFIX.length) : input.secret, "base64");
  const timestamp = String(Math.floor(input.timestampSeconds));
  const signature = createHmac("sha256", key)
    .update(`${input.id}.${timestamp}.`)
    .update(input.body)
    .digest("base64");
  return { "webhook-id": input.id, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}` };
}
