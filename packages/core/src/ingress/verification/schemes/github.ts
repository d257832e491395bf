import { matchOutcome, SIGNATURE_MISSING, signatureInvalid } from "../check.js";
import { signatureMatches } from "../compare.js";
import { hmac } from "../hmac.js";
import { presentHeader } from "../request-headers.js";
import type { SignatureVerifier } from "../types.js";

const PREFIX = "sha256=";

/** X-Hub-Signature-256: "sha256=" + hex HMAC-SHA256(secret, body). GitHub signs no timestamp. */
export function createGithubVerifier(secret: string): SignatureVerifier {
  const key = Buffer.from(secret, "utf8");
  return (request) => {
    const header = presentHeader(request.headers, "x-hub-signature-256");
    if (header === undefined) return SIGNATURE_MISSING;
    if (!header.startsWith(PREFIX)) return signatureInvalid("malformed");
    const expected = hmac("sha256", key, request.body).toString("hex");
    return matchOutcome(signatureMatches(expected, header.slice(PREFIX.length), "hex"));
  };
}
