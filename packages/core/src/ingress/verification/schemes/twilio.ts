import { createHash } from "node:crypto";
import { headerValue } from "../../../headers.js";
import { matchOutcome, SIGNATURE_MISSING, SIGNATURE_VALID, signatureInvalid } from "../check.js";
import { signatureMatches } from "../compare.js";
import { hmac } from "../hmac.js";
import { presentHeader } from "../request-headers.js";
import type { SignatureVerifier, SignedRequest } from "../types.js";

const FORM = "application/x-www-form-urlencoded";
// Twilio sends a few dozen parameters; express.urlencoded, which twilio-node's middleware expects,
// refuses more than 1000 by default. Parsing costs ~0.6 µs a parameter, so a stuffed form stops here.
export const MAX_TWILIO_FORM_PARAMS = 1000;
const DEFAULT_PORTS: Record<string, string> = { "http://": ":80", "https://": ":443" };
// scheme://, then the authority (userinfo@host:port), then the rest (path, query, fragment) as sent.
const URL_PARTS = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/is;

/**
 * The URL as given, plus the same URL with the scheme's default port added (when it has none)
 * or removed (when it has it): Twilio may sign either form, and twilio-node accepts both.
 */
export function twilioUrlVariants(url: string): string[] {
  const parts = URL_PARTS.exec(url);
  if (!parts) return [url];
  const scheme = parts[1]!;
  const authority = parts[2]!;
  const rest = parts[3]!;
  const defaultPort = DEFAULT_PORTS[scheme.toLowerCase()];
  if (defaultPort === undefined) return [url];
  const hostStart = authority.lastIndexOf("@") + 1;
  // In "[::1]:443" the port's colon is the one after the IPv6 literal's closing bracket.
  const portStart = authority.indexOf(":", Math.max(hostStart, authority.lastIndexOf("]") + 1));
  if (portStart < 0) return [url, scheme + authority + defaultPort + rest];
  if (authority.slice(portStart) === defaultPort) return [url, scheme + authority.slice(0, portStart) + rest];
  return [url];
}

/** POST parameters as Twilio appends them to the URL: keys sorted, each key's distinct values sorted, key+value. */
export function twilioSortedParams(body: Buffer): string {
  const valuesByKey = new Map<string, Set<string>>();
  for (const [key, value] of new URLSearchParams(body.toString("utf8"))) {
    const values = valuesByKey.get(key) ?? new Set<string>();
    values.add(value);
    valuesByKey.set(key, values);
  }
  let data = "";
  for (const key of [...valuesByKey.keys()].sort()) {
    for (const value of [...valuesByKey.get(key)!].sort()) data += key + value;
  }
  return data;
}

function hasTooManyParams(body: Buffer): boolean {
  let separators = 0;
  for (let at = body.indexOf(0x26); at >= 0; at = body.indexOf(0x26, at + 1)) {
    separators += 1;
    if (separators >= MAX_TWILIO_FORM_PARAMS) return true;
  }
  return false;
}

function bodySha256Param(url: string): string | undefined {
  try {
    return new URL(url).searchParams.get("bodySHA256") ?? undefined;
  } catch {
    return undefined;
  }
}

function isFormPost(request: SignedRequest): boolean {
  const contentType = headerValue(request.headers, "content-type")?.split(";", 1)[0]?.trim().toLowerCase();
  return request.method.toUpperCase() === "POST" && contentType === FORM;
}

/**
 * What Twilio signs after the URL, and the body hash it vouches for: a JSON body is covered by
 * the URL's bodySHA256 parameter; form POST parameters are appended; a body covered by neither
 * is unsigned (undefined: it could be swapped freely, so the request is not valid), as is a
 * form of more than MAX_TWILIO_FORM_PARAMS parameters.
 */
function signedContent(request: SignedRequest): { params: string; bodySha256: string | undefined } | undefined {
  const bodySha256 = bodySha256Param(request.url);
  if (bodySha256 !== undefined) return { params: "", bodySha256 };
  if (isFormPost(request)) {
    return hasTooManyParams(request.body) ? undefined : { params: twilioSortedParams(request.body), bodySha256: undefined };
  }
  if (request.body.length === 0) return { params: "", bodySha256: undefined };
  return undefined;
}

/**
 * X-Twilio-Signature: base64 HMAC-SHA1(auth token, URL + sorted POST params), or for JSON bodies
 * HMAC over the URL alone with the URL's bodySHA256 = hex SHA-256 of the body. No timestamp is signed.
 */
export function createTwilioVerifier(authToken: string): SignatureVerifier {
  const key = Buffer.from(authToken, "utf8");
  return (request) => {
    const signature = presentHeader(request.headers, "x-twilio-signature");
    if (signature === undefined) return SIGNATURE_MISSING;
    const content = signedContent(request);
    if (content === undefined) return signatureInvalid("unsigned_body");
    const urlSigned = twilioUrlVariants(request.url).some((url) =>
      signatureMatches(hmac("sha1", key, url, content.params).toString("base64"), signature, "base64"),
    );
    if (!urlSigned) return signatureInvalid("mismatch");
    if (content.bodySha256 === undefined) return SIGNATURE_VALID;
    const bodyHash = createHash("sha256").update(request.body).digest("hex");
    return matchOutcome(signatureMatches(bodyHash, content.bodySha256, "hex"));
  };
}
