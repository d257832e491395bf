/**
 * Replays in the dashboard: target names and hints, response previews, and the local port
 * (the browser's own sending of a Local replay is in local-replay.ts).
 */
import type { RouterOutputs } from "@rehook/api";
import {
  DEFAULT_LOCAL_PORT,
  describePayload,
  isLocalPort,
  isUnresolvedFailure,
  LOCAL_REPLAY_ORIGIN,
  localReplayOrigin,
  matchedDestinations,
  planReplay,
  REPLAY_ENVIRONMENTS,
  type ReplayEnvironment,
  type ReplayPlanSource,
  type ReplayTargetName,
} from "@rehook/core/browser";
import type { PayloadData } from "../components/payload";

export type { ReplayEnvironment };
/** What one replay request made: its attempts (one per destination for matched and failed). */
export type ReplayOutcomeData = RouterOutputs["replays"]["create"];
export type ReplayAttempt = ReplayOutcomeData["attempts"][number];
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
  original: "The destination this event went to",
  staging: "The destination with the staging hostname",
  local: "Through your rehook listen, or from this browser",
  custom: "Any http or https URL",
};

/** How this event's delivery to a destination stands, as the replay dialog's picker says it. */
export type DeliveryState = "failed" | "resolved" | "delivered" | "pending" | "paused" | "filtered" | "none";

/** One of the endpoint's destinations in the replay dialog's picker. */
export interface DestinationChoice {
  id: string;
  name: string;
  /** What a replay to it requests (null: it cannot take this event; `reason` says why). */
  url: string | null;
  /** The same on the endpoint's staging host (null: no staging host, or it cannot take it). */
  stagingUrl: string | null;
  reason: string | null;
  delivery: DeliveryState;
}

/** What the replay dialog offers for one event: the server's own rule (core's planReplay) applied to each choice. */
export interface ReplayChoices {
  /** The endpoint's destinations, in its order. */
  destinations: DestinationChoice[];
  /** Checked when the dialog opens: the failed deliveries not resolved yet; else the destinations it matched; else the only one. */
  preselected: string[];
  /** The destinations of its unresolved failed deliveries, and every one it matched (the sets "failed" and "matched" name). */
  failed: string[];
  matched: string[];
  hints: Record<ReplayEnvironment, TargetHint>;
}

const sentence = (reason: string) => `${reason[0]!.toUpperCase()}${reason.slice(1)}${/[.!?]$/.test(reason) ? "" : "."}`;

/**
 * The replay dialog's choices for an event: its endpoint's destinations (each with the URL a
 * replay there requests and how the event's delivery there stands), which to check first,
 * and what staging, local and custom resolve to.
 */
/** `paused`: destinations whose delivery of the event waits for a resume (planned as pending, shown as paused). */
export function replayChoices(source: ReplayPlanSource & { filtered: string[]; paused?: string[] }): ReplayChoices {
  const byDestination = new Map(source.deliveries.map((delivery) => [delivery.destinationId, delivery]));
  const destinations = source.destinations.map((destination): DestinationChoice => {
    const plan = planReplay({ destinationId: destination.id }, source);
    const staging = planReplay({ target: "staging", destinationId: destination.id }, source);
    const delivery = byDestination.get(destination.id);
    const state: DeliveryState = delivery
      ? delivery.status === "failed"
        ? delivery.resolved
          ? "resolved"
          : "failed"
        : delivery.status === "pending" && source.paused?.includes(destination.id)
          ? "paused"
          : delivery.status
      : source.filtered.includes(destination.id)
        ? "filtered"
        : "none";
    return {
      id: destination.id,
      name: destination.name,
      url: plan.ok ? plan.sends[0]!.url : null,
      stagingUrl: staging.ok ? staging.sends[0]!.url : null,
      reason: plan.ok ? null : sentence(plan.reason),
      delivery: state,
    };
  });
  const failed = matchedDestinations(source, isUnresolvedFailure).map((destination) => destination.id);
  const matched = matchedDestinations(source).map((destination) => destination.id);
  const preselected = failed.length > 0 ? failed : matched.length > 0 ? matched : destinations.length === 1 ? [destinations[0]!.id] : [];
  const reachable = destinations.filter((destination) => destination.url !== null);
  const one = destinations.length === 1 ? destinations[0]! : null;
  const original: TargetHint =
    reachable.length === 0
      ? { available: false, reason: destinations.length === 0 ? "This endpoint has no destination to replay to." : (destinations[0]!.reason ?? "No destination can take this event.") }
      : { available: true, url: one?.url ?? null, note: one ? NOTES.original : "Choose the destinations below" };
  const staging = planReplay({ target: "staging", destinationId: (destinations.find((each) => preselected.includes(each.id)) ?? destinations[0])?.id }, source);
  const local = planReplay({ target: "local" }, source);
  return {
    destinations,
    preselected,
    failed,
    matched,
    hints: {
      original,
      staging: staging.ok ? { available: true, url: staging.sends[0]!.url, note: NOTES.staging } : { available: false, reason: sentence(staging.reason) },
      local: local.ok ? { available: true, url: local.sends[0]!.url, note: NOTES.local } : { available: false, reason: sentence(local.reason) },
      custom: { available: true, url: null, note: NOTES.custom },
    },
  };
}

/**
 * The replay requests that send to the checked destinations: one naming the set when it is
 * exactly the failed or the matched ones (the server then answers them together), else one
 * per destination.
 */
export function destinationRequests(checked: string[], choices: Pick<ReplayChoices, "failed" | "matched">): Array<{ environment: ReplayTargetName; destinationId?: string }> {
  const same = (set: string[]) => set.length > 1 && set.length === checked.length && set.every((id) => checked.includes(id));
  if (same(choices.failed)) return [{ environment: "failed" }];
  if (same(choices.matched)) return [{ environment: "matched" }];
  return checked.map((destinationId) => ({ environment: "original", destinationId }));
}

/** What a feed row's quick replay sends to: its one destination, else its failed deliveries, else every destination it went to. */
export function rowReplayTarget(row: { resolved: boolean; deliveries: Array<{ status: string }> }): { environment: ReplayTargetName; label: string } {
  if (row.deliveries.length <= 1) return { environment: "original", label: "Replay to original" };
  // A resolved event's failures are made good: "failed" would find nothing left to send (422).
  if (!row.resolved && row.deliveries.some((delivery) => delivery.status === "failed")) return { environment: "failed", label: "Replay to its failed destinations" };
  return { environment: "matched", label: "Replay to its destinations" };
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
