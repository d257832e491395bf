import { matchOutcome, SIGNATURE_MISSING, signatureInvalid } from "../check.js";
import { anySignatureMatches, MAX_SIGNATURE_CANDIDATES } from "../compare.js";
import { hmac } from "../hmac.js";
import { presentHeader } from "../request-headers.js";
import { timestampProblem } from "../tolerance.js";
import type { SignatureVerifier } from "../types.js";

// Items read from the header: room for t, 16 v1 and some v0, without splitting a huge header whole.
const MAX_HEADER_ITEMS = 4 * MAX_SIGNATURE_CANDIDATES;

interface StripeSignatureHeader {
  timestamp: string | undefined;
  signatures: string[];
}

/** "t=<unix>,v1=<hex>,v1=<hex>,v0=<hex>": the first t, and the v1 signatures (v0 is Stripe's test scheme, not checked). */
function parseStripeHeader(header: string): StripeSignatureHeader {
  const parsed: StripeSignatureHeader = { timestamp: undefined, signatures: [] };
  for (const item of header.split(",", MAX_HEADER_ITEMS)) {
    const equals = item.indexOf("=");
    if (equals < 0) continue;
    const name = item.slice(0, equals).trim();
    const value = item.slice(equals + 1).trim();
    if (name === "t") parsed.timestamp ??= value;
    else if (name === "v1") parsed.signatures.push(value);
  }
  return parsed;
}

/** Stripe-Signature: hex HMAC-SHA256(secret as UTF-8, "{t}." + body), t within the tolerance. */
export function createStripeVerifier(secret: string): SignatureVerifier {
  const key = Buffer.from(secret, "utf8");
  return (request) => {
    const header = presentHeader(request.headers, "stripe-signature");
    if (header === undefined) return SIGNATURE_MISSING;
    const { timestamp, signatures } = parseStripeHeader(header);
    // Stripe carries its timestamp inside the header: one without t or v1 is not Stripe's format.
    if (timestamp === undefined || signatures.length === 0) return signatureInvalid("malformed");
    const problem = timestampProblem(timestamp, request.nowSeconds);
    if (problem) return signatureInvalid(problem);
    const expected = hmac("sha256", key, `${timestamp}.`, request.body).toString("hex");
    return matchOutcome(anySignatureMatches(expected, signatures, "hex"));
  };
}
