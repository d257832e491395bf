import { timingSafeEqual } from "node:crypto";

/** Signatures considered per header: a header stuffed with thousands costs no more than this many compares. */
export const MAX_SIGNATURE_CANDIDATES = 16;

/**
 * Whether a received signature is the expected one, as encoded text. Constant time for equal
 * lengths; a length mismatch is simply unequal (timingSafeEqual would throw).
 * Hex is compared case-insensitively (the expected text is lowercase); base64 exactly.
 */
export function signatureMatches(expected: string, received: string, encoding: "hex" | "base64"): boolean {
  if (received.length !== expected.length) return false;
  const receivedBytes = Buffer.from(encoding === "hex" ? received.toLowerCase() : received, "utf8");
  const expectedBytes = Buffer.from(expected, "utf8");
  return receivedBytes.length === expectedBytes.length && timingSafeEqual(receivedBytes, expectedBytes);
}

/** Whether any of the first MAX_SIGNATURE_CANDIDATES received signatures is the expected one. */
export function anySignatureMatches(expected: string, received: readonly string[], encoding: "hex" | "base64"): boolean {
  const considered = Math.min(received.length, MAX_SIGNATURE_CANDIDATES);
  for (let i = 0; i < considered; i += 1) if (signatureMatches(expected, received[i]!, encoding)) return true;
  return false;
}
