import { truncateText } from "../safe-text.js";

/**
 * An alert: what a team's alert rule says happened, in channel-neutral terms. Each channel
 * (Slack-compatible, Discord, Microsoft Teams, email, a signed webhook) renders it within its
 * own limits; none of them interprets the text as markup (see each renderer).
 */
export const ALERT_KINDS = ["delivery_failed", "destination_paused", "health_low", "signature_invalid_rate", "bulk_replay_finished"] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export interface Alert {
  kind: AlertKind;
  /** One line: "Webhook delivery failed". */
  title: string;
  /** What happened, in a sentence: "invoice.paid failed to forward: destination answered 503". */
  summary: string;
  /** Label and value pairs shown as a table (endpoint, destination, rate…), in order. */
  fields: Array<[label: string, value: string]>;
  /** Where the dashboard shows it. */
  url: string;
  at: Date;
}

/** Text cut to `max` characters with an ellipsis, never splitting a surrogate pair. */
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${truncateText(text, max - 1)}…`;
}

/** "2026-11-25 14:02:11 UTC". */
export const alertTime = (at: Date) => `${at.toISOString().replace("T", " ").slice(0, 19)} UTC`;
