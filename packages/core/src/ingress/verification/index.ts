export * from "./types.js";
export { SIGNATURE_TOLERANCE_SECONDS } from "./tolerance.js";
export { MAX_SIGNATURE_CANDIDATES } from "./compare.js";
export { MAX_TWILIO_FORM_PARAMS } from "./schemes/twilio.js";
export { MAX_SECRET_LENGTH, verificationRuleProblem } from "./rule-problem.js";
export { createVerifier, createVerifierOrRefusal } from "./create-verifier.js";
export { SIGNATURE_MISSING, SIGNATURE_VALID, signatureInvalid } from "./check.js";
export { isSignatureReason, SIGNATURE_REASONS, signatureReasonText, type SignatureReason } from "./reasons.js";
