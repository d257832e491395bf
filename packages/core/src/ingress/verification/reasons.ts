import { SIGNATURE_TOLERANCE_SECONDS } from "./tolerance.js";

/**
 * Why a signature check did not find a valid signature. Stored with the event (text, no
 * check constraint: a reason added later needs no migration) and worded by signatureReasonText.
 * Browser-safe: the dashboard's badge says the same sentence.
 */
export const SIGNATURE_REASONS = ["missing_header", "malformed", "stale_timestamp", "mismatch", "unsigned_body", "bad_secret"] as const;
export type SignatureReason = (typeof SIGNATURE_REASONS)[number];

const TOLERANCE_MINUTES = SIGNATURE_TOLERANCE_SECONDS / 60;

const REASON_TEXT: Record<SignatureReason, string> = {
  missing_header: "A header the check needs is absent or empty: the signature itself, or the timestamp or message id it signs.",
  malformed: "The signature header is not in the scheme's format: a wrong prefix, no signature of the version checked, or a timestamp that is not Unix seconds.",
  stale_timestamp: `The signed timestamp is more than ${TOLERANCE_MINUTES} minutes from the server's clock: an old request sent again, or a sender whose clock is off.`,
  mismatch: "The signature does not match the request under this endpoint's secret: the sender signs with another secret, or the body or URL changed on the way.",
  unsigned_body: "The signature does not cover the body (Twilio signs form posts, and JSON bodies through the URL's bodySHA256), so the body could have been swapped.",
  bad_secret: "This endpoint's saved signature rule can no longer be used to check signatures: save the verification settings again.",
};

/** The reason in one sentence, as the dashboard's tooltip and the capture URL's 401 say it. */
export function signatureReasonText(reason: SignatureReason): string {
  return REASON_TEXT[reason];
}

export function isSignatureReason(value: unknown): value is SignatureReason {
  return typeof value === "string" && (SIGNATURE_REASONS as readonly string[]).includes(value);
}
