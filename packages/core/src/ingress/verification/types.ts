import type { HeaderList } from "../../headers.js";
import type { SignatureReason } from "./reasons.js";

/** The signature rules a capture URL can check, each to its provider's published rule. */
export const SIGNATURE_SCHEMES = ["stripe", "github", "shopify", "slack", "twilio", "standard-webhooks", "hmac-sha256"] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

/** What a captured event records: null on events of endpoints that verify nothing. */
export const SIGNATURE_STATUSES = ["valid", "invalid", "missing"] as const;
export type SignatureStatus = (typeof SIGNATURE_STATUSES)[number];

export const HMAC_ENCODINGS = ["hex", "base64"] as const;
export type HmacEncoding = (typeof HMAC_ENCODINGS)[number];

/** How an endpoint checks signatures (the secret in clear: held in memory only). */
export interface VerificationRule {
  scheme: SignatureScheme;
  secret: string;
  /** hmac-sha256 only: the header that carries the signature. */
  header?: string;
  /** hmac-sha256 only (default hex). */
  encoding?: HmacEncoding;
  /** hmac-sha256 only: text before the signature in the header ("sha256="), if any. */
  prefix?: string;
}

/** A captured request as a verifier sees it. */
export interface SignedRequest {
  method: string;
  headers: HeaderList;
  body: Buffer;
  /** The URL the sender called as it knows it ({BASE_URL}/api/webhook/{slug}[/sub][?query]): Twilio signs it. */
  url: string;
  /** Seconds since the epoch, from the server's (injectable) clock. */
  nowSeconds: number;
}

/** What a check found: valid, or invalid or missing and why (see reasons.ts). */
export type SignatureCheck = { status: "valid"; reason: null } | { status: Exclude<SignatureStatus, "valid">; reason: SignatureReason };

/** A verifier prepared once per rule (keys decoded), then called per request. */
export type SignatureVerifier = (request: SignedRequest) => SignatureCheck;
