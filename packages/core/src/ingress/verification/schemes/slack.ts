import { signatureMatches } from "../compare.js";
import { hmac } from "../hmac.js";
import { presentHeader } from "../request-headers.js";
import { isTimestampFresh } from "../tolerance.js";
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
    if (signature === undefined) return "missing";
    const timestamp = presentHeader(request.headers, "x-slack-request-timestamp");
    if (timestamp === undefined || !isTimestampFresh(timestamp, request.nowSeconds)) return "invalid";
    if (!signature.startsWith(`${VERSION}=`)) return "invalid";
    const expected = hmac("sha256", key, `${VERSION}:${timestamp}:`, request.body).toString("hex");
    return signatureMatches(expected, signature.slice(VERSION.length + 1), "hex") ? "valid" : "invalid";
  };
}
