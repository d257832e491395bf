import { SIGNATURE_REASONS, type SignatureReason } from "./reasons.js";
import type { SignatureCheck } from "./types.js";

// Every outcome is one frozen object made once: a capture's check allocates nothing for its answer.
export const SIGNATURE_VALID: SignatureCheck = Object.freeze({ status: "valid", reason: null });
/** The signature header itself is absent or blank. */
export const SIGNATURE_MISSING: SignatureCheck = Object.freeze({ status: "missing", reason: "missing_header" });

const INVALID = Object.fromEntries(SIGNATURE_REASONS.map((reason) => [reason, Object.freeze({ status: "invalid", reason })])) as Record<SignatureReason, SignatureCheck>;

/** An invalid signature, and why. */
export function signatureInvalid(reason: SignatureReason): SignatureCheck {
  return INVALID[reason];
}

/** Valid when the computed and received signatures match, else a mismatch. */
export function matchOutcome(matches: boolean): SignatureCheck {
  return matches ? SIGNATURE_VALID : INVALID.mismatch;
}
