import { randomBytes } from "node:crypto";

export const SIGNING_SECRET_PREFIX = "whsec_";

/** A Standard Webhooks secret: "whsec_" + base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + randomBytes(32).toString("base64");
}
