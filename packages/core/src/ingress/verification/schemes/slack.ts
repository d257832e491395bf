import { matchOutcome, SIGNATURE_MISSING, signatureInvalid } from "../check.js";
import { signatureMatches } from "../compare.js";
import { hmac } from "../hmac.js";
import { presentHeader } from "../request-headers.js";
import { timestampProblem } from "../tolerance.js";
import type { SignatureVerifier } from "../types.js";

const VERSION = "v0";

/**
 * X-Slack-Signature: "v0=" + hex HMAC-SHA256(signing secret, "v0:{X-Slack-Request-Timestamp}:" + body),
 * the timestamp within the tolerance. A signature without its timestamp cannot be checked: invalid.
 */
export function createSlackVerifier(secret: string): SignatureVerifier {
  const key = Buffer.from(secret, "utf8");
  return (request) => {
    const signature = presentHeader(request.headers, "x-slack-signature");
    if (signature === undefined) return SIGNATURE_MISSING;
    const timestamp = presentHeader(request.headers, "x-slack-request-timestamp");
    if (timestamp === undefined) return signatureInvalid("missing_header");
    if (!signature.startsWith(`${VERSION}=`)) return signatureInvalid("malformed");
    const problem = timestampProblem(timestamp, request.nowSeconds);
    if (problem) return signatureInvalid(problem);
    const expected = hmac("sha256", key, `${VERSION}:${timestamp}:`, request.body).toString("hex");
    return matchOutcome(signatureMatches(expected, signature.slice(VERSION.length + 1), "hex"));
  };
}
