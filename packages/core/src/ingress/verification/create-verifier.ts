import { UserError } from "../../errors.js";
import { signatureInvalid } from "./check.js";
import { verificationRuleProblem } from "./rule-problem.js";
import { createGithubVerifier } from "./schemes/github.js";
import { createHmacSha256Verifier } from "./schemes/hmac-sha256.js";
import { createShopifyVerifier } from "./schemes/shopify.js";
import { createSlackVerifier } from "./schemes/slack.js";
import { createStandardWebhooksVerifier } from "./schemes/standard-webhooks.js";
import { createStripeVerifier } from "./schemes/stripe.js";
import { createTwilioVerifier } from "./schemes/twilio.js";
import type { SignatureVerifier, VerificationRule } from "./types.js";

function schemeVerifier(rule: VerificationRule): SignatureVerifier {
  switch (rule.scheme) {
    case "stripe":
      return createStripeVerifier(rule.secret);
    case "github":
      return createGithubVerifier(rule.secret);
    case "shopify":
      return createShopifyVerifier(rule.secret);
    case "slack":
      return createSlackVerifier(rule.secret);
    case "twilio":
      return createTwilioVerifier(rule.secret);
    case "standard-webhooks":
      return createStandardWebhooksVerifier(rule.secret);
    case "hmac-sha256":
      return createHmacSha256Verifier({ secret: rule.secret, header: rule.header!, encoding: rule.encoding ?? "hex", prefix: rule.prefix ?? "" });
  }
}

/**
 * Prepares a rule once (keys decoded) into a per-request check. Throws a UserError for a rule
 * verificationRuleProblem rejects. The check itself never throws: capture must not fail because
 * of what a sender put in its headers, so anything unexpected counts as invalid (malformed).
 */
export function createVerifier(rule: VerificationRule): SignatureVerifier {
  const problem = verificationRuleProblem(rule);
  if (problem !== undefined) throw new UserError("validation_failed", problem);
  const verify = schemeVerifier(rule);
  return (request) => {
    try {
      return verify(request);
    } catch {
      return signatureInvalid("malformed");
    }
  };
}

/**
 * A saved rule that a later, stricter check refuses must not turn every capture into a 503:
 * its requests are marked invalid (bad_secret) instead, and the endpoint page shows the
 * problem when the rule is saved again.
 */
export function createVerifierOrRefusal(rule: VerificationRule): SignatureVerifier {
  try {
    return createVerifier(rule);
  } catch {
    return () => signatureInvalid("bad_secret");
  }
}
