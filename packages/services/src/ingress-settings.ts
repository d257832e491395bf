import {
  customResponseSchema,
  dedupRuleSchema,
  handshakeInputSchema,
  handshakeRuleProblem,
  HMAC_ENCODINGS,
  HTTP_TOKEN,
  isStorableText,
  MAX_SECRET_LENGTH,
  secretHint,
  SIGNATURE_SCHEMES,
  UNSTORABLE_TEXT,
  UserError,
  verificationRuleProblem,
  type CustomResponse,
  type DedupRule,
  type HandshakeProvider,
  type HandshakeRule,
  type HmacEncoding,
  type SecretHint,
  type SignatureScheme,
} from "@rehook/core";
import type { Endpoint, StoredVerification } from "@rehook/db";
import { z } from "zod";

/*
 * An endpoint's ingress settings: what senders get back (a custom response, a provider's URL
 * handshake) and how their signatures are checked. Secrets (the verification secret, the
 * handshake token) are write-only: a view shows that one is set and its last four characters,
 * and an update that leaves one out keeps the saved one.
 */

export const MAX_SIGNATURE_PREFIX_LENGTH = 64;

const noControls = (text: string) => !/[\u0000-\u001f\u007f]/.test(text);

const verificationInputSchema = z.object({
  scheme: z.enum(SIGNATURE_SCHEMES, { message: `scheme must be one of ${SIGNATURE_SCHEMES.join(", ")}` }),
  secret: z
    .string("secret must be text")
    .min(1, "secret must not be empty")
    .max(MAX_SECRET_LENGTH, `secret must be at most ${MAX_SECRET_LENGTH} characters`)
    .refine(noControls, "secret must not contain control characters")
    .refine(isStorableText, `secret ${UNSTORABLE_TEXT}`)
    .optional(),
  rejectInvalid: z.boolean("reject_invalid must be true or false").default(false),
  header: z.string().regex(HTTP_TOKEN, "header must be an HTTP header name, like X-Signature").max(100, "header must be at most 100 characters").optional(),
  encoding: z.enum(HMAC_ENCODINGS, { message: `encoding must be one of ${HMAC_ENCODINGS.join(", ")}` }).optional(),
  prefix: z
    .string("prefix must be text")
    .max(MAX_SIGNATURE_PREFIX_LENGTH, `prefix must be at most ${MAX_SIGNATURE_PREFIX_LENGTH} characters`)
    .refine(noControls, "prefix must not contain control characters")
    .refine(isStorableText, `prefix ${UNSTORABLE_TEXT}`)
    .optional(),
});

/** The settings as create and update take them (null clears one; undefined leaves it). */
export const ingressSettingsSchema = z.object({
  response: customResponseSchema.nullable().optional(),
  handshake: handshakeInputSchema.nullable().optional(),
  verification: verificationInputSchema.nullable().optional(),
  dedup: dedupRuleSchema.nullable().optional(),
});
/** The settings as callers name them (a field left out stays out; null clears it). Unchecked: the use case parses it with ingressSettingsSchema. */
export interface IngressSettingsInput {
  response?: { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | null;
  handshake?: { provider: string; token?: string } | null;
  verification?: { scheme: string; secret?: string; rejectInvalid?: boolean; header?: string; encoding?: string; prefix?: string } | null;
  dedup?: { key: unknown; window_s: number } | null;
}
type ParsedIngress = z.infer<typeof ingressSettingsSchema>;

const invalid = (message: string) => new UserError("validation_failed", message);

/** The handshake to save: a left-out token keeps the saved one while the provider stays the same. */
function handshakeToSave(input: NonNullable<ParsedIngress["handshake"]>, saved: HandshakeRule | null): HandshakeRule {
  const token = input.token ?? (saved?.provider === input.provider ? saved.token : undefined);
  const rule: HandshakeRule = token === undefined ? { provider: input.provider } : { provider: input.provider, token };
  const problem = handshakeRuleProblem(rule);
  if (problem) throw invalid(problem);
  return rule;
}

/** The signature rule to save: a left-out secret keeps the saved one while the scheme stays the same. */
function verificationToSave(input: NonNullable<ParsedIngress["verification"]>, saved: StoredVerification | null): StoredVerification {
  const secret = input.secret ?? (saved?.scheme === input.scheme ? saved.secret : undefined);
  if (secret === undefined) throw invalid(`A ${input.scheme} signature check needs the secret the sender signs with.`);
  const generic = input.scheme === "hmac-sha256";
  if (!generic && (input.header || input.encoding || input.prefix)) throw invalid("header, encoding and prefix apply to the hmac-sha256 scheme only.");
  if (generic && !input.header) throw invalid("The hmac-sha256 scheme needs the header that carries the signature, like X-Signature.");
  const rule: StoredVerification = { scheme: input.scheme, secret, rejectInvalid: input.rejectInvalid };
  if (generic) Object.assign(rule, { header: input.header, encoding: input.encoding ?? "hex", ...(input.prefix ? { prefix: input.prefix } : {}) });
  const problem = verificationRuleProblem(rule);
  if (problem) throw invalid(problem);
  return rule;
}

/** The endpoint columns a create or update sets, from checked input and what is saved now. */
export function ingressChanges(
  parsed: ParsedIngress,
  saved: Pick<Endpoint, "handshake" | "verification"> | null,
): Partial<Pick<Endpoint, "customResponse" | "handshake" | "verification" | "dedup">> {
  const changes: Partial<Pick<Endpoint, "customResponse" | "handshake" | "verification" | "dedup">> = {};
  if (parsed.response !== undefined) changes.customResponse = parsed.response as CustomResponse | null;
  if (parsed.handshake !== undefined) changes.handshake = parsed.handshake && handshakeToSave(parsed.handshake, saved?.handshake ?? null);
  if (parsed.verification !== undefined) changes.verification = parsed.verification && verificationToSave(parsed.verification, saved?.verification ?? null);
  if (parsed.dedup !== undefined) changes.dedup = parsed.dedup as DedupRule | null;
  return changes;
}

export interface IngressView {
  response: { status: number; headers: Record<string, string>; body: string; delayMs: number } | null;
  handshake: { provider: HandshakeProvider; token: SecretHint | null } | null;
  verification: {
    scheme: SignatureScheme;
    rejectInvalid: boolean;
    secret: SecretHint;
    header?: string;
    encoding?: HmacEncoding;
    prefix?: string;
  } | null;
  /** Which requests are stored as duplicates of an earlier one (null: none). */
  dedup: DedupRule | null;
}

export function ingressView(endpoint: Pick<Endpoint, "customResponse" | "handshake" | "verification" | "dedup">): IngressView {
  const { customResponse: response, handshake, verification, dedup } = endpoint;
  return {
    dedup,
    response: response && { status: response.status, headers: response.headers, body: response.body, delayMs: response.delayMs },
    handshake: handshake && { provider: handshake.provider, token: handshake.token ? secretHint(handshake.token) : null },
    verification: verification && {
      scheme: verification.scheme,
      rejectInvalid: verification.rejectInvalid,
      secret: secretHint(verification.secret),
      ...(verification.header ? { header: verification.header } : {}),
      ...(verification.encoding ? { encoding: verification.encoding } : {}),
      ...(verification.prefix ? { prefix: verification.prefix } : {}),
    },
  };
}
