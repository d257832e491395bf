import { Form } from "@remix-run/react";
import { useRef, useState, type ReactNode } from "react";
import { HANDSHAKE_CHOICES, HMAC_ENCODINGS, secretHintText, SIGNATURE_SCHEME_CHOICES, type HandshakeProvider, type HmacEncoding, type SecretHint, type SignatureScheme } from "../lib/ingress";
import { HeaderTable } from "./header-table";
import { CheckboxField, SaveActions, SubmitButton, TextField } from "./form-fields";
import { FormError, FormSuccess } from "./ui";
import "./ingress-settings.css";

/*
 * The endpoint page's ingress sections: what senders get back, a provider's URL handshake and
 * the signature check. Each is a form of its own that posts one intent (one field of
 * endpoints.update); the route's action reads it with lib/ingress.ts.
 */

/** Where a section's last save stands, for its Save button and messages. */
export interface SectionState {
  saving: boolean;
  saved: string | null;
  error: string | null;
}

export interface SavedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  delayMs: number;
}

type HeaderRow = { key: number; name: string; value: string };

/** "Response to senders": the default answer, or a status, headers, body and delay of the user's own. */
export function ResponseSettingsForm({ response, state, resetting }: { response: SavedResponse | null; state: SectionState; resetting: boolean }) {
  const [custom, setCustom] = useState(response !== null);
  const [headers, setHeaders] = useState<HeaderRow[]>(() => Object.entries(response?.headers ?? {}).map(([name, value], key) => ({ key, name, value })));
  // Rows are keyed by a counter, not their index, so removing one keeps the others' inputs.
  const nextKey = useRef(headers.length);
  const addHeader = () => {
    const key = nextKey.current++;
    setHeaders((rows) => [...rows, { key, name: "", value: "" }]);
  };
  const setHeader = (key: number, part: "name" | "value", text: string) => setHeaders((rows) => rows.map((header) => (header.key === key ? { ...header, [part]: text } : header)));

  return (
    <Form method="post" className="form-stack ingress-form" noValidate preventScrollReset data-testid="response-form">
      <fieldset className="fieldset">
        <legend>Answer</legend>
        <div className="target-options ingress-options">
          <ModeOption name="responseMode" value="default" checked={!custom} onChange={() => setCustom(false)} label="Default answer">
            <span className="mono">200 {'{"received":true,"eventId":"…"}'}</span>
          </ModeOption>
          <ModeOption name="responseMode" value="custom" checked={custom} onChange={() => setCustom(true)} label="Custom response">
            Your own status, headers, body and delay.
          </ModeOption>
        </div>
      </fieldset>
      {custom ? (
        <div className="ingress-panel field-box" data-testid="response-custom">
          <div className="ingress-pair">
            <TextField id="response-status" label="Status" hint="200 to 599." name="responseStatus" inputMode="numeric" autoComplete="off" defaultValue={String(response?.status ?? 200)} />
            <TextField
              id="response-delay"
              label="Delay (ms)"
              hint="Wait this long before answering: 0 to 30000."
              name="responseDelayMs"
              inputMode="numeric"
              autoComplete="off"
              defaultValue={String(response?.delayMs ?? 0)}
            />
          </div>
          <div className="ingress-headers">
            <HeaderTable
              caption="Headers (Content-Length, Date and connection headers are set by the server)"
              rows={headers}
              keyOf={(header) => header.key}
              fieldNames={{ name: "responseHeaderName", value: "responseHeaderValue" }}
              namePlaceholder="X-Handled-By"
              rowTestId="response-header-row"
              onEdit={(index, part, text) => setHeader(headers[index]!.key, part, text)}
              onAdd={addHeader}
              onRemove={(index) => setHeaders((rows) => rows.filter((_, i) => i !== index))}
            />
          </div>
          <div className="field">
            <label htmlFor="response-body">Body</label>
            <textarea id="response-body" name="responseBody" className="mono" rows={5} spellCheck={false} defaultValue={response?.body ?? ""} aria-describedby="response-body-hint" />
            <small id="response-body-hint" className="hint">
              Up to 64 KiB. <span className="mono">{"{{event_id}}"}</span> is replaced by the stored event&apos;s id. Without a Content-Type header, a body that looks
              like JSON is sent as JSON, anything else as text. Answers are data, never pages: HTML, XML, SVG, script and PDF types, cookies and redirects
              off the capture URLs are refused.
            </small>
          </div>
        </div>
      ) : null}
      <div className="form-actions">
        <SubmitButton busy={state.saving} busyLabel="Saving…" name="intent" value="response">
          Save response
        </SubmitButton>
        {response ? (
          <SubmitButton busy={resetting} busyLabel="Resetting…" className="button secondary" name="intent" value="responseReset">
            Reset to default
          </SubmitButton>
        ) : null}
        <FormSuccess message={state.saved} />
      </div>
      <FormError message={state.error} />
    </Form>
  );
}

/** One choice of a two-way setting, in the look of the retry presets. */
export function ModeOption({ name, value, checked, onChange, label, children }: { name: string; value: string; checked: boolean; onChange: () => void; label: string; children: ReactNode }) {
  return (
    <label className="target-option">
      <input type="radio" name={name} value={value} checked={checked} onChange={onChange} />
      <span className="target-option-text">
        <span className="target-option-label">{label}</span>
        <span className="target-option-hint">{children}</span>
      </span>
    </label>
  );
}

/** A select of "None" (the empty value) or one of the choices: how each section is turned off or on. */
function NoneOrChoice({
  id,
  name,
  value,
  onChange,
  choices,
  describedBy,
}: {
  id: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  choices: ReadonlyArray<{ value: string; label: string }>;
  describedBy?: string;
}) {
  return (
    <select id={id} name={name} value={value} onChange={(event) => onChange(event.target.value)} aria-describedby={describedBy}>
      <option value="">None</option>
      {choices.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </select>
  );
}

/**
 * A write-only secret: a password field that is never filled in, with a hint saying whether
 * one is saved (and its last four characters). Left empty, the saved one is kept.
 */
function SecretField({ id, label, name, noun, saved, hint }: { id: string; label: string; name: string; noun: string; saved: SecretHint | null; hint: string }) {
  return (
    <div className="secret-field">
      <TextField
        id={id}
        label={label}
        name={name}
        type="password"
        autoComplete="new-password"
        spellCheck={false}
        placeholder={saved ? "Leave empty to keep it" : undefined}
        hint={saved ? `${hint} Leave empty to keep the saved one.` : hint}
      />
      {saved ? (
        <span className="secret-set" data-testid={`${id}-set`}>
          {secretHintText(noun, saved)}
        </span>
      ) : null}
    </div>
  );
}

export interface SavedHandshake {
  provider: HandshakeProvider;
  token: SecretHint | null;
}

/** "Provider handshake": answer Slack's, Meta's or Zoom's URL check, with the token it needs. */
export function HandshakeSettingsForm({ handshake, state }: { handshake: SavedHandshake | null; state: SectionState }) {
  const [provider, setProvider] = useState<string>(handshake?.provider ?? "");
  const choice = HANDSHAKE_CHOICES.find((candidate) => candidate.value === provider);
  // A token is kept only while the provider stays the one it was saved for.
  const savedToken = handshake && handshake.provider === provider ? handshake.token : null;
  return (
    <Form method="post" className="form-stack ingress-form" noValidate preventScrollReset data-testid="handshake-form">
      <input type="hidden" name="intent" value="handshake" />
      <div className="field">
        <label htmlFor="handshake-provider">Provider</label>
        <NoneOrChoice id="handshake-provider" name="handshakeProvider" value={provider} onChange={setProvider} choices={HANDSHAKE_CHOICES} />
      </div>
      {choice ? <SecretField id="handshake-token" label={choice.tokenLabel} name="handshakeToken" noun="Token" saved={savedToken} hint={choice.tokenHint} /> : null}
      <SaveActions label="Save handshake" saving={state.saving} saved={state.saved} error={state.error} />
    </Form>
  );
}

export interface SavedVerification {
  scheme: SignatureScheme;
  rejectInvalid: boolean;
  secret: SecretHint;
  header?: string;
  encoding?: HmacEncoding;
  prefix?: string;
}

/** "Signature verification": a provider's scheme (or a plain HMAC-SHA256), its secret, and whether to turn bad requests away. */
export function VerificationSettingsForm({ verification, state }: { verification: SavedVerification | null; state: SectionState }) {
  const [scheme, setScheme] = useState<string>(verification?.scheme ?? "");
  // The secret is kept only while the scheme stays the one it was saved for.
  const savedSecret = verification && verification.scheme === scheme ? verification.secret : null;
  return (
    <Form method="post" className="form-stack ingress-form" noValidate preventScrollReset data-testid="verification-form">
      <input type="hidden" name="intent" value="verification" />
      <div className="field">
        <label htmlFor="verification-scheme">Scheme</label>
        <NoneOrChoice
          id="verification-scheme"
          name="verificationScheme"
          value={scheme}
          onChange={setScheme}
          choices={SIGNATURE_SCHEME_CHOICES}
          describedBy="verification-scheme-hint"
        />
        <small id="verification-scheme-hint" className="hint">
          Each event records whether its signature was valid, invalid or missing.
        </small>
      </div>
      {scheme ? (
        <>
          <SecretField
            id="verification-secret"
            label="Secret"
            name="verificationSecret"
            noun="Secret"
            saved={savedSecret}
            hint={savedSecret ? "The secret the sender signs with." : "The secret the sender signs with (its webhook signing secret)."}
          />
          {scheme === "hmac-sha256" ? <HmacFields verification={verification?.scheme === "hmac-sha256" ? verification : null} /> : null}
          <CheckboxField
            id="verification-reject"
            label="Reject invalid or missing signatures (401, nothing stored)"
            hint="Off: every request is stored and its event shows the outcome."
            name="verificationRejectInvalid"
            defaultChecked={verification?.rejectInvalid ?? false}
          />
        </>
      ) : null}
      <SaveActions label="Save verification" saving={state.saving} saved={state.saved} error={state.error} />
    </Form>
  );
}

/** The generic scheme's own settings: which header carries the signature, how it is encoded, and what comes before it. */
function HmacFields({ verification }: { verification: SavedVerification | null }) {
  return (
    <div className="ingress-panel ingress-triple field-box" data-testid="verification-hmac">
      <TextField
        id="verification-header"
        label="Header"
        hint="Carries the signature."
        name="verificationHeader"
        autoComplete="off"
        spellCheck={false}
        placeholder="X-Signature"
        defaultValue={verification?.header ?? ""}
      />
      <div className="field">
        <label htmlFor="verification-encoding">Encoding</label>
        <select id="verification-encoding" name="verificationEncoding" defaultValue={verification?.encoding ?? "hex"}>
          {HMAC_ENCODINGS.map((encoding) => (
            <option key={encoding} value={encoding}>
              {encoding}
            </option>
          ))}
        </select>
      </div>
      <TextField
        id="verification-prefix"
        label="Prefix"
        hint='Text before the signature, like "sha256=".'
        name="verificationPrefix"
        autoComplete="off"
        spellCheck={false}
        placeholder="none"
        defaultValue={verification?.prefix ?? ""}
      />
    </div>
  );
}
