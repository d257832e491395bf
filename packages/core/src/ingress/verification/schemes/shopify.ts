import { matchOutcome, SIGNATURE_MISSING } from "../check.js";
import { signatureMatches } from "../compare.js";
import { hmac } from "../hmac.js";
import { presentHeader } from "../request-headers.js";
import type { SignatureVerifier } from "../types.js";

/** X-Shopify-Hmac-Sha256: base64 HMAC-SHA256(app secret, body). No timestamp is signed. */
export function createShopifyVerifier(secret: string): SignatureVerifier {
  const key = Buffer.from(secret, "utf8");
  return (request) => {
    const header = presentHeader(request.headers, "x-shopify-hmac-sha256");
    if (header === undefined) return SIGNATURE_MISSING;
    const expected = hmac("sha256", key, request.body).toString("base64");
    return matchOutcome(signatureMatches(expected, header, "base64"));
  };
}
