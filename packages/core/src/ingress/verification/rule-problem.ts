import { SIGNING_SECRET_PREFIX } from "../../signing.js";
import { HMAC_ENCODINGS, SIGNATURE_SCHEMES, type VerificationRule } from "./types.js";

export const MAX_SECRET_LENGTH = 512;

// RFC 9110 token: what an HTTP header name may be made of.
const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
// Canonical base64 with padding, as Standard Webhooks secrets are written.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function standardWebhooksSecretProblem(secret: string): string | undefined {
  const encoded = secret.startsWith(SIGNING_SECRET_PREFIX) ? secret.slice(SIGNING_SECRET_PREFIX.length) : secret;
  if (encoded === "" || !BASE64.test(encoded)) return `A Standard Webhooks secret must be ${SIGNING_SECRET_PREFIX} followed by base64, or base64 alone.`;
  return undefined;
}

function hmacSha256Problem(rule: VerificationRule): string | undefined {
  if (!rule.header) return "A generic HMAC-SHA256 rule needs the name of the header that carries the signature.";
  if (!HTTP_TOKEN.test(rule.header)) return `"${rule.header.slice(0, 64)}" is not a valid HTTP header name.`;
  if (rule.encoding !== undefined && !HMAC_ENCODINGS.includes(rule.encoding)) return "The signature encoding must be hex or base64.";
  if (rule.prefix !== undefined && CONTROL_CHARACTER.test(rule.prefix)) return "The signature prefix must not contain control characters.";
  return undefined;
}

/**
 * Why a rule cannot be used, in one line for the user (settings answer 400 with it), or undefined
 * when it can. Checks the values too, since rules may arrive as untyped JSON.
 */
export function verificationRuleProblem(rule: VerificationRule): string | undefined {
  if (!(SIGNATURE_SCHEMES as readonly string[]).includes(rule.scheme)) return `Unknown signature scheme; use one of ${SIGNATURE_SCHEMES.join(", ")}.`;
  if (typeof rule.secret !== "string" || rule.secret === "") return "The signing secret is empty.";
  if (rule.secret.length > MAX_SECRET_LENGTH) return `The signing secret is longer than ${MAX_SECRET_LENGTH} characters.`;
  if (rule.scheme === "standard-webhooks") return standardWebhooksSecretProblem(rule.secret);
  if (rule.scheme === "hmac-sha256") return hmacSha256Problem(rule);
  return undefined;
}
