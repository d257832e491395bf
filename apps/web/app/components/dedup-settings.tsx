import { Form } from "@remix-run/react";
import { useState } from "react";
import { DEDUP_KEY_CHOICES, DEFAULT_DEDUP_WINDOW_S, describeDedupRule, keyKind, splitWindow, WINDOW_UNITS, type DedupKeyKind, type DedupRule } from "../lib/dedup";
import { SaveActions, TextField } from "./form-fields";
import { ModeOption, type SectionState } from "./ingress-settings";
import "./ingress-settings.css";

/*
 * The endpoint page's Deduplication section: off, or a key (the provider's delivery id, a
 * header, a JSON field or the exact body) and a window. It posts the "dedup" intent; the
 * route's action reads it with lib/dedup.ts.
 */

export function DedupSettingsForm({ dedup, state }: { dedup: DedupRule | null; state: SectionState }) {
  const [on, setOn] = useState(dedup !== null);
  const [kind, setKind] = useState<DedupKeyKind>(dedup ? keyKind(dedup.key) : "auto");
  const choice = DEDUP_KEY_CHOICES.find((candidate) => candidate.value === kind)!;
  const savedKey = dedup?.key;
  const window = splitWindow(dedup?.window_s ?? DEFAULT_DEDUP_WINDOW_S);
  return (
    <Form method="post" className="form-stack ingress-form" noValidate preventScrollReset data-testid="dedup-form">
      <input type="hidden" name="intent" value="dedup" />
      <p className="dedup-current" data-testid="dedup-current">
        {dedup ? describeDedupRule(dedup) : "Off: every request is stored and forwarded."}
      </p>
      <fieldset className="fieldset">
        <legend>Repeats</legend>
        <div className="target-options ingress-options">
          <ModeOption name="dedupMode" value="off" checked={!on} onChange={() => setOn(false)} label="Off">
            Every request is forwarded, repeats included.
          </ModeOption>
          <ModeOption name="dedupMode" value="on" checked={on} onChange={() => setOn(true)} label="Skip repeats">
            A repeat is stored and answered as usual, but not forwarded. With signature checks on, only a validly signed request can be the first.
          </ModeOption>
        </div>
      </fieldset>
      {on ? (
        <div className="ingress-panel field-box" data-testid="dedup-rule">
          <div className="field">
            <label htmlFor="dedup-key">Same when they share</label>
            <select id="dedup-key" name="dedupKey" value={kind} onChange={(event) => setKind(event.target.value as DedupKeyKind)} aria-describedby="dedup-key-hint">
              {DEDUP_KEY_CHOICES.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.label}
                </option>
              ))}
            </select>
            <small id="dedup-key-hint" className="hint">
              {choice.hint}
            </small>
          </div>
          {kind === "header" ? (
            <TextField
              id="dedup-header"
              label="Header name"
              name="dedupHeader"
              autoComplete="off"
              spellCheck={false}
              placeholder="X-Delivery-Id"
              defaultValue={savedKey && typeof savedKey === "object" && "header" in savedKey ? savedKey.header : ""}
            />
          ) : null}
          {kind === "json" ? (
            <TextField
              id="dedup-json"
              label="JSON field"
              hint="A dotted path: data.id, data.object.id, items.0.id."
              name="dedupJsonPath"
              autoComplete="off"
              spellCheck={false}
              placeholder="data.id"
              defaultValue={savedKey && typeof savedKey === "object" && "json" in savedKey ? savedKey.json : ""}
            />
          ) : null}
          <div className="ingress-pair">
            <TextField
              id="dedup-window"
              label="Window"
              hint="How long after the first request a repeat counts as a duplicate; later, it is new again. Up to 7 days."
              name="dedupWindow"
              inputMode="numeric"
              autoComplete="off"
              defaultValue={String(window.value)}
            />
            <div className="field">
              <label htmlFor="dedup-window-unit">Unit</label>
              <select id="dedup-window-unit" name="dedupWindowUnit" defaultValue={window.unit}>
                {WINDOW_UNITS.map((unit) => (
                  <option key={unit.id} value={unit.id}>
                    {unit.label}
                  </option>
                ))}
              </select>
            </div>
          </div>
        </div>
      ) : null}
      <SaveActions label="Save deduplication" saving={state.saving} saved={state.saved} error={state.error} />
    </Form>
  );
}
