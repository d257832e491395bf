import { checkDestinationSyntax } from "./destination-syntax.js";
import { forwardTarget } from "./forwarding.js";

export const REPLAY_ENVIRONMENTS = ["original", "staging", "local", "custom"] as const;
export type ReplayEnvironment = (typeof REPLAY_ENVIRONMENTS)[number];

/** The developer's local server port when none is chosen (the spec's localhost:3000). */
export const DEFAULT_LOCAL_PORT = 3000;

/** Where local replays go: a developer's machine, as seen from their browser. */
export const LOCAL_REPLAY_ORIGIN = localReplayOrigin(DEFAULT_LOCAL_PORT);

/** The local replay origin for a port (http://localhost:PORT). */
export function localReplayOrigin(port: number): string {
  return `http://localhost:${port}`;
}

/** A TCP port a local replay can go to: a whole number from 1 to 65535. */
export function isLocalPort(port: unknown): port is number {
  return typeof port === "number" && Number.isInteger(port) && port >= 1 && port <= 65_535;
}

export interface ReplaySource {
  /** The endpoint's destination now (not the one the event was captured for). */
  destinationUrl: string | null;
  stagingHost: string | null;
  /** The captured sub-path and raw query. */
  path: string;
  query: string;
}

export type ReplayTarget =
  | { ok: true; url: string }
  /** invalid: the request itself is wrong (400); impossible: this endpoint cannot do it (422). */
  | { ok: false; kind: "invalid" | "impossible"; reason: string };

/**
 * The URL a replay goes to. original: the endpoint's current destination with the captured
 * sub-path and query appended (as forwarding does); staging: the same with the host
 * replaced by the endpoint's staging hostname; local: http://localhost:PORT (3000 unless the
 * browser chose another) followed by the path and query the original would use (the captured ones for capture-only endpoints);
 * custom: the given URL as it is. A captured sub-path that could leave the destination's path
 * makes every target but custom impossible (see forwardTarget).
 */
export function replayTarget(environment: ReplayEnvironment, source: ReplaySource, customUrl?: string | null, localPort: number = DEFAULT_LOCAL_PORT): ReplayTarget {
  if (environment === "custom") {
    if (!customUrl) return { ok: false, kind: "invalid", reason: "customUrl is required for a custom replay" };
    const checked = checkDestinationSyntax(customUrl);
    return checked.ok ? { ok: true, url: checked.url } : { ok: false, kind: "invalid", reason: `customUrl: ${checked.reason}` };
  }
  const original = source.destinationUrl ? forwardTarget(source.destinationUrl, source.path, source.query) : null;
  if (original && !original.ok) return { ok: false, kind: "impossible", reason: original.reason };
  switch (environment) {
    case "original":
      return original ? { ok: true, url: original.url } : { ok: false, kind: "impossible", reason: "this endpoint has no destination URL to replay to" };
    case "staging": {
      if (!original) return { ok: false, kind: "impossible", reason: "staging replays need a destination URL on the endpoint" };
      if (!source.stagingHost) return { ok: false, kind: "impossible", reason: "set a staging hostname on the endpoint first" };
      const url = new URL(original.url);
      url.host = source.stagingHost;
      return { ok: true, url: url.href };
    }
    case "local": {
      if (!isLocalPort(localPort)) return { ok: false, kind: "invalid", reason: "the local port must be a whole number from 1 to 65535" };
      const origin = localReplayOrigin(localPort);
      const target = original ?? forwardTarget(`${origin}/`, source.path, source.query);
      if (!target.ok) return { ok: false, kind: "impossible", reason: target.reason };
      const url = new URL(target.url);
      return { ok: true, url: `${origin}${url.pathname}${url.search}` };
    }
  }
}

/** An edited replay's sub-path and query (see parseReplayOverrides): each given one replaces the captured one. */
export interface ReplayPathEdits {
  path?: string;
  query?: string;
}

/**
 * replayTarget for an edited request: an edited path or query replaces the captured one, so
 * original, staging and local append it to the destination as forwarding appends the captured
 * ones; a custom URL, used as it is otherwise, gets them appended the same way.
 */
export function editedReplayTarget(environment: ReplayEnvironment, source: ReplaySource, customUrl: string | null | undefined, edits: ReplayPathEdits = {}): ReplayTarget {
  if (edits.path === undefined && edits.query === undefined) return replayTarget(environment, source, customUrl);
  if (environment !== "custom") return replayTarget(environment, { ...source, path: edits.path ?? source.path, query: edits.query ?? source.query }, customUrl);
  const custom = replayTarget("custom", source, customUrl);
  if (!custom.ok) return custom;
  const target = forwardTarget(custom.url, edits.path ?? "", edits.query ?? "");
  return target.ok ? target : { ok: false, kind: "invalid", reason: target.reason };
}
