export * from "./types.js";
export { SIGNATURE_TOLERANCE_SECONDS } from "./tolerance.js";
export { MAX_SIGNATURE_CANDIDATES } from "./compare.js";
export { MAX_TWILIO_FORM_PARAMS } from "./schemes/twilio.js";
export { MAX_SECRET_LENGTH, verificationRuleProblem } from "./rule-problem.js";
export { createVerifier } from "./create-verifier.js";
