import { matchOutcome, SIGNATURE_MISSING, signatureInvalid } from "../check.js";
import { signatureMatches } from "../compare.js";
import { hmac } from "../hmac.js";
import { presentHeader } from "../request-headers.js";
import type { HmacEncoding, SignatureVerifier } from "../types.js";

export interface GenericHmacOptions {
  secret: string;
  header: string;
  encoding: HmacEncoding;
  prefix: string;
}

/** A header of the user's choosing: prefix + HMAC-SHA256(secret, body) in hex (any case) or base64. */
export function createHmacSha256Verifier(options: GenericHmacOptions): SignatureVerifier {
  const key = Buffer.from(options.secret, "utf8");
  const { header: headerName, encoding, prefix } = options;
  return (request) => {
    const header = presentHeader(request.headers, headerName);
    if (header === undefined) return SIGNATURE_MISSING;
    if (!header.startsWith(prefix)) return signatureInvalid("malformed");
    const expected = hmac("sha256", key, request.body).toString(encoding);
    return matchOutcome(signatureMatches(expected, header.slice(prefix.length), encoding));
  };
}
