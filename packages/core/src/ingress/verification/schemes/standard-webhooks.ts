import { standardWebhooksKey, standardWebhooksSignature } from "../../../standard-webhooks.js";
import { matchOutcome, SIGNATURE_MISSING, signatureInvalid } from "../check.js";
import { anySignatureMatches, MAX_SIGNATURE_CANDIDATES } from "../compare.js";
import { presentHeader } from "../request-headers.js";
import { timestampProblem } from "../tolerance.js";
import type { SignatureVerifier } from "../types.js";

// Entries read from the header: room for 16 v1 and some of other versions (v1a, ...), without splitting it whole.
const MAX_HEADER_ENTRIES = 4 * MAX_SIGNATURE_CANDIDATES;

/** "v1,<base64> v1,<base64> v1a,<...>": the v1 signatures (others are schemes we do not check). */
function v1Signatures(header: string): string[] {
  const signatures: string[] = [];
  for (const entry of header.split(" ", MAX_HEADER_ENTRIES)) {
    if (entry.startsWith("v1,")) signatures.push(entry.slice(3));
  }
  return signatures;
}

/**
 * Standard Webhooks: webhook-signature holds base64 HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}." + body),
 * key = the secret's base64 part decoded (the outbound signer's rule), timestamp within the tolerance.
 */
export function createStandardWebhooksVerifier(secret: string): SignatureVerifier {
  const key = standardWebhooksKey(secret);
  return (request) => {
    const header = presentHeader(request.headers, "webhook-signature");
    if (header === undefined) return SIGNATURE_MISSING;
    const id = presentHeader(request.headers, "webhook-id");
    const timestamp = presentHeader(request.headers, "webhook-timestamp");
    if (id === undefined || timestamp === undefined) return signatureInvalid("missing_header");
    const signatures = v1Signatures(header);
    if (signatures.length === 0) return signatureInvalid("malformed");
    const problem = timestampProblem(timestamp, request.nowSeconds);
    if (problem) return signatureInvalid(problem);
    const expected = standardWebhooksSignature(key, id, timestamp, request.body);
    return matchOutcome(anySignatureMatches(expected, signatures, "base64"));
  };
}
