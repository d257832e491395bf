/**
 * Ingress settings on the dashboard: the choices the endpoint page offers (the server's own
 * lists, which @rehook/core/browser does not carry) and its three forms read back into
 * endpoints.update changes. The server checks the values; these readers only turn fields
 * into the shapes it takes, and say what is wrong when a field cannot be one.
 */

import type { RouterInputs } from "@rehook/api";

type Update = RouterInputs["endpoints"]["update"];
export type ResponseChange = Update["response"];
export type HandshakeChange = Update["handshake"];
export type VerificationChange = Update["verification"];
export type HandshakeProvider = NonNullable<HandshakeChange>["provider"];
export type SignatureScheme = NonNullable<VerificationChange>["scheme"];
export type HmacEncoding = NonNullable<NonNullable<VerificationChange>["encoding"]>;

export const HANDSHAKE_CHOICES: ReadonlyArray<{ value: HandshakeProvider; label: string; tokenLabel: string; tokenHint: string }> = [
  { value: "slack", label: "Slack", tokenLabel: "Verification token", tokenHint: "Optional: when set, only challenges carrying this token are answered." },
  { value: "meta", label: "Meta (Facebook, Instagram, WhatsApp)", tokenLabel: "Verify token", tokenHint: "The verify token you entered in the app's webhook settings." },
  { value: "zoom", label: "Zoom", tokenLabel: "Secret token", tokenHint: "The app's secret token: Rehook answers the URL validation with its HMAC." },
];

export const SIGNATURE_SCHEME_CHOICES: ReadonlyArray<{ value: SignatureScheme; label: string }> = [
  { value: "stripe", label: "Stripe (Stripe-Signature)" },
  { value: "github", label: "GitHub (X-Hub-Signature-256)" },
  { value: "shopify", label: "Shopify (X-Shopify-Hmac-Sha256)" },
  { value: "slack", label: "Slack (X-Slack-Signature)" },
  { value: "twilio", label: "Twilio (X-Twilio-Signature)" },
  { value: "standard-webhooks", label: "Standard Webhooks (webhook-signature)" },
  { value: "hmac-sha256", label: "Other: HMAC-SHA256 of the body" },
];

export const HMAC_ENCODINGS: ReadonlyArray<HmacEncoding> = ["hex", "base64"];

/** What an event's signature check found, as the Activity filter and the badges word it. */
export const SIGNATURE_STATUS_CHOICES = [
  { value: "valid", label: "Valid" },
  { value: "invalid", label: "Invalid" },
  { value: "missing", label: "Missing" },
] as const;
export type SignatureStatus = (typeof SIGNATURE_STATUS_CHOICES)[number]["value"];

export function isSignatureStatus(value: unknown): value is SignatureStatus {
  return SIGNATURE_STATUS_CHOICES.some((choice) => choice.value === value);
}

/** A saved secret as the server shows it: that one is set, and its last four characters ("" for a short one). */
export type SecretHint = { set: true; last4: string };

/** "Secret set · ends in abcd", or "Secret set" when the secret is too short to show any of it. */
export function secretHintText(noun: string, hint: SecretHint): string {
  return hint.last4 ? `${noun} set · ends in ${hint.last4}` : `${noun} set`;
}

export type FormRead<Change> = { ok: true; change: Change } | { ok: false; error: string };

const text = (form: FormData, name: string) => String(form.get(name) ?? "");

/** A whole number from a field, or undefined when it is not one (blank is `blank`). */
function wholeNumber(value: string, blank: number | undefined): number | undefined {
  const trimmed = value.trim();
  if (trimmed === "") return blank;
  return /^\d+$/.test(trimmed) ? Number(trimmed) : undefined;
}

/** The Response form: null for the default answer, else status, headers (name/value rows), body and delay. */
export function readResponseForm(form: FormData): FormRead<ResponseChange> {
  if (text(form, "responseMode") !== "custom") return { ok: true, change: null };
  const status = wholeNumber(text(form, "responseStatus"), undefined);
  if (status === undefined) return { ok: false, error: "The status must be a whole number from 200 to 599." };
  const delayMs = wholeNumber(text(form, "responseDelayMs"), 0);
  if (delayMs === undefined) return { ok: false, error: "The delay must be a whole number of milliseconds, from 0 to 30000." };
  const names = form.getAll("responseHeaderName").map(String);
  const values = form.getAll("responseHeaderValue").map(String);
  const headers: Record<string, string> = {};
  for (const [index, raw] of names.entries()) {
    const name = raw.trim();
    const value = values[index] ?? "";
    // A row left empty is no header; a value without a name is a mistake the user should see.
    if (name === "" && value.trim() === "") continue;
    if (name === "") return { ok: false, error: `Header ${index + 1} has a value but no name.` };
    if (Object.hasOwn(headers, name)) return { ok: false, error: `The response header ${name} is given twice.` };
    headers[name] = value;
  }
  return { ok: true, change: { status, headers, body: text(form, "responseBody"), delayMs } };
}

/** The Handshake form: null for none; a blank token is left out, so the saved one is kept. */
export function readHandshakeForm(form: FormData): FormRead<HandshakeChange> {
  const provider = HANDSHAKE_CHOICES.find((choice) => choice.value === text(form, "handshakeProvider"))?.value;
  if (!provider) return { ok: true, change: null };
  const token = text(form, "handshakeToken");
  return { ok: true, change: token === "" ? { provider } : { provider, token } };
}

/** The Verification form: null for none; a blank secret is left out (kept); header, encoding and prefix for hmac-sha256 only. */
export function readVerificationForm(form: FormData): FormRead<VerificationChange> {
  const scheme = SIGNATURE_SCHEME_CHOICES.find((choice) => choice.value === text(form, "verificationScheme"))?.value;
  if (!scheme) return { ok: true, change: null };
  const secret = text(form, "verificationSecret");
  const change: NonNullable<VerificationChange> = { scheme, rejectInvalid: form.get("verificationRejectInvalid") !== null, ...(secret === "" ? {} : { secret }) };
  if (scheme === "hmac-sha256") {
    const header = text(form, "verificationHeader").trim();
    const encoding = HMAC_ENCODINGS.find((candidate) => candidate === text(form, "verificationEncoding"));
    const prefix = text(form, "verificationPrefix");
    Object.assign(change, { ...(header ? { header } : {}), ...(encoding ? { encoding } : {}), ...(prefix ? { prefix } : {}) });
  }
  return { ok: true, change };
}
