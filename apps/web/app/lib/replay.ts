/**
 * Replays in the dashboard: target names and hints, response previews, and the local port
 * (the browser's own sending of a Local replay is in local-replay.ts).
 */
import type { RouterOutputs } from "@rehook/api";
import {
  DEFAULT_LOCAL_PORT,
  describePayload,
  isLocalPort,
  LOCAL_REPLAY_ORIGIN,
  localReplayOrigin,
  REPLAY_ENVIRONMENTS,
  replayTarget,
  type ReplayEnvironment,
  type ReplaySource,
} from "@rehook/core/browser";
import type { PayloadData } from "../components/payload";

export type { ReplayEnvironment };
export type ReplayAttempt = RouterOutputs["replays"]["create"];
/** A replay list row: replayedAt is a Date from tRPC and single-fetch loaders. */
export type ReplayRow = RouterOutputs["replays"]["list"]["replays"][number];
export type BulkJob = RouterOutputs["replays"]["bulk"];

export { DEFAULT_LOCAL_PORT, LOCAL_REPLAY_ORIGIN, REPLAY_ENVIRONMENTS };

export const ENVIRONMENT_LABELS: Record<ReplayEnvironment, string> = {
  original: "Original",
  staging: "Staging",
  local: "Local",
  custom: "Custom",
};

export function environmentLabel(environment: string): string {
  return (ENVIRONMENT_LABELS as Record<string, string>)[environment] ?? environment;
}

export type TargetHint = { available: true; url: string | null; note: string } | { available: false; reason: string };

const NOTES: Record<ReplayEnvironment, string> = {
  original: "The endpoint’s destination URL",
  staging: "The destination with the staging hostname",
  local: "Through your rehook listen, or from this browser",
  custom: "Any http or https URL",
};

/** What each target resolves to for this event: the server's own rule (core's replayTarget). */
export function replayHints(source: ReplaySource): Record<ReplayEnvironment, TargetHint> {
  const hint = (environment: ReplayEnvironment): TargetHint => {
    if (environment === "custom") return { available: true, url: null, note: NOTES.custom };
    const target = replayTarget(environment, source);
    return target.ok ? { available: true, url: target.url, note: NOTES[environment] } : { available: false, reason: `${target.reason[0]!.toUpperCase()}${target.reason.slice(1)}.` };
  };
  return { original: hint("original"), staging: hint("staging"), local: hint("local"), custom: hint("custom") };
}

/** Base64 to bytes, in the browser and on the server alike (atob is global in both). */
export function base64Bytes(base64: string): Uint8Array<ArrayBuffer> {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A stored body for PayloadBlock: pretty JSON, text, or a hex dump. */
export function payloadOf(bytes: Uint8Array): PayloadData {
  const view = describePayload(bytes, null);
  if (view.kind === "json") return { kind: "json", pretty: view.pretty };
  if (view.kind === "text") return { kind: "text", text: view.text };
  return { kind: "binary", hex: view.hex, size: view.size };
}

/** Past this size the dialog's preview is cut (the attempt page shows the whole body). */
const PREVIEW_CHARS = 4_000;

/** A short response preview: JSON pretty-printed, text as it is, cut at PREVIEW_CHARS. */
export function previewBody(text: string): { payload: PayloadData; cut: boolean } {
  const payload = payloadOf(new TextEncoder().encode(text));
  if (payload.kind === "json" && payload.pretty.length > PREVIEW_CHARS) return { payload: { kind: "text", text: payload.pretty.slice(0, PREVIEW_CHARS) }, cut: true };
  if (payload.kind === "text" && payload.text.length > PREVIEW_CHARS) return { payload: { kind: "text", text: payload.text.slice(0, PREVIEW_CHARS) }, cut: true };
  return { payload, cut: false };
}

// ------------------------------------------------------------------ local replays

/** Where this browser keeps the local server's port between visits. */
export const LOCAL_PORT_KEY = "rehook.replay.localPort";

/** The port this browser last used for local replays, or 3000 (storage may be blocked or hold junk). */
export function rememberedLocalPort(): number {
  try {
    const port = Number(window.localStorage.getItem(LOCAL_PORT_KEY));
    return isLocalPort(port) ? port : DEFAULT_LOCAL_PORT;
  } catch {
    return DEFAULT_LOCAL_PORT;
  }
}

export function rememberLocalPort(port: number): void {
  try {
    window.localStorage.setItem(LOCAL_PORT_KEY, String(port));
  } catch {
    // Storage blocked (private mode, policy): the port is used for this replay only.
  }
}

/** The port field's text as a port, or the sentence saying what to type instead. */
export function parseLocalPort(text: string): { ok: true; port: number } | { ok: false; error: string } {
  const trimmed = text.trim();
  const port = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (isLocalPort(port)) return { ok: true, port };
  return { ok: false, error: "Enter the port your local server listens on: a whole number from 1 to 65535 (for example 3000)." };
}

/** A local target URL (http://localhost:3000/path) moved to another port. */
export function withLocalPort(url: string, port: number): string {
  const parsed = new URL(url);
  return `${localReplayOrigin(port)}${parsed.pathname}${parsed.search}`;
}
