/**
 * Deduplication on the dashboard: the key choices the endpoint page offers, a rule in words,
 * and the Deduplication form read back into an endpoints.update change. The rule's module in
 * core hashes with node:crypto, so its words are repeated here (the same wording as core's
 * describeDedupKey); the server checks every value and says what is wrong with it.
 */

import type { RouterInputs } from "@rehook/api";
import type { FormRead } from "./ingress";

export type DedupChange = RouterInputs["endpoints"]["update"]["dedup"];
export type DedupRule = NonNullable<DedupChange>;

export type DedupKeyKind = "auto" | "header" | "json" | "body";

export const DEDUP_KEY_CHOICES: ReadonlyArray<{ value: DedupKeyKind; label: string; hint: string }> = [
  {
    value: "auto",
    label: "Provider delivery id (auto)",
    hint: "The id the sender gives each delivery and keeps on its retries: Standard Webhooks/Svix, GitHub, Shopify, GitLab, Jira, Linear, Twilio headers, or Stripe, Slack and Paddle event ids. Requests without one are never duplicates.",
  },
  { value: "header", label: "Header…", hint: "The value of a header you name. Requests without it are never duplicates." },
  { value: "json", label: "JSON field…", hint: "A field of a JSON body, by its dotted path (items.0.id reads an array). Requests without it are never duplicates." },
  { value: "body", label: "Exact body", hint: "The body's bytes: the same payload sent again is a duplicate, whatever its headers." },
];

/** A day: long enough to cover most providers' retry bursts, short enough that a real repeat a week later goes through. */
export const DEFAULT_DEDUP_WINDOW_S = 86_400;

export const WINDOW_UNITS = [
  { id: "s", label: "seconds", one: "second", seconds: 1 },
  { id: "min", label: "minutes", one: "minute", seconds: 60 },
  { id: "h", label: "hours", one: "hour", seconds: 3_600 },
  { id: "d", label: "days", one: "day", seconds: 86_400 },
] as const;

export type WindowUnit = (typeof WINDOW_UNITS)[number]["id"];

/**
 * A window in the largest unit that shows it whole (5400 → 90 minutes, 604800 → 7 days), but
 * up to two days in hours: "24 hours" is how people say a day's retry window.
 */
export function splitWindow(seconds: number): { value: number; unit: WindowUnit } {
  if (seconds >= 3_600 && seconds <= 172_800 && seconds % 3_600 === 0) return { value: seconds / 3_600, unit: "h" };
  for (const unit of [...WINDOW_UNITS].reverse()) if (seconds >= unit.seconds && seconds % unit.seconds === 0) return { value: seconds / unit.seconds, unit: unit.id };
  return { value: seconds, unit: "s" };
}

/** "24 hours", "90 minutes", "1 second". */
export function windowText(seconds: number): string {
  const { value, unit } = splitWindow(seconds);
  const words = WINDOW_UNITS.find((candidate) => candidate.id === unit)!;
  return `${value.toLocaleString("en-US")} ${value === 1 ? words.one : words.label}`;
}

/** The kind of a rule's key, as the form's select names it. */
export function keyKind(key: DedupRule["key"]): DedupKeyKind {
  if (key === "auto" || key === "body") return key;
  return "header" in key ? "header" : "json";
}

/** What the key is read from, in core's words ("provider delivery id", "header X-Id", …). */
export function dedupKeyText(key: DedupRule["key"]): string {
  if (key === "auto") return "provider delivery id";
  if (key === "body") return "exact body";
  if ("header" in key) return `header ${key.header}`;
  return `JSON field ${key.json}`;
}

/** One line for a saved rule: "Same provider delivery id within 24 hours: stored as a duplicate, not forwarded." */
export function describeDedupRule(rule: DedupRule): string {
  return `Same ${dedupKeyText(rule.key)} within ${windowText(rule.window_s)}: stored as a duplicate, not forwarded.`;
}

const text = (form: FormData, name: string) => String(form.get(name) ?? "");

/** The Deduplication form: null when off, else the key (naming a header or a field) and the window in seconds. */
export function readDedupForm(form: FormData): FormRead<DedupChange> {
  if (text(form, "dedupMode") !== "on") return { ok: true, change: null };
  const kind = DEDUP_KEY_CHOICES.find((choice) => choice.value === text(form, "dedupKey"))?.value;
  if (!kind) return { ok: false, error: "Choose what makes two requests the same." };
  let key: DedupRule["key"] = kind === "auto" || kind === "body" ? kind : "auto";
  if (kind === "header") {
    const header = text(form, "dedupHeader").trim();
    if (header === "") return { ok: false, error: "Name the header that carries the delivery id, e.g. X-Delivery-Id." };
    key = { header };
  } else if (kind === "json") {
    const json = text(form, "dedupJsonPath").trim();
    if (json === "") return { ok: false, error: "Give the JSON field's dotted path, e.g. data.id." };
    key = { json };
  }
  const amount = text(form, "dedupWindow").trim();
  const unit = WINDOW_UNITS.find((candidate) => candidate.id === text(form, "dedupWindowUnit")) ?? WINDOW_UNITS[0];
  if (!/^\d{1,9}$/.test(amount)) return { ok: false, error: "The window must be a whole number." };
  return { ok: true, change: { key, window_s: Number(amount) * unit.seconds } };
}
