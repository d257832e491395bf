// STUB until the verifiers branch lands.
import type { SignatureVerifier, VerificationRule } from "./types.js";
export * from "./types.js";
export function createVerifier(_rule: VerificationRule): SignatureVerifier {
  return () => "missing";
}
export function verificationRuleProblem(_rule: VerificationRule): string | undefined {
  return undefined;
}
