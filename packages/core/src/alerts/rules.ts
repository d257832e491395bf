import { ALERT_KINDS, type AlertKind } from "./alert.js";

/** What an alert rule watches: the alert kinds. */
export const ALERT_TRIGGERS = ALERT_KINDS;
export type AlertTrigger = AlertKind;

/** Where a rule posts. */
export const ALERT_CHANNELS = ["slack", "discord", "teams", "email", "webhook"] as const;
export type AlertChannel = (typeof ALERT_CHANNELS)[number];

export const ALERT_TRIGGER_LABELS: Record<AlertTrigger, string> = {
  delivery_failed: "A delivery finally failed",
  destination_paused: "A destination was paused by its breaker",
  health_low: "Health fell below a threshold",
  signature_invalid_rate: "Invalid signatures above a threshold",
  bulk_replay_finished: "A bulk replay finished",
};

export const ALERT_CHANNEL_LABELS: Record<AlertChannel, string> = {
  slack: "Slack (incoming webhook)",
  discord: "Discord (webhook)",
  teams: "Microsoft Teams (workflow webhook)",
  email: "Email (SMTP)",
  webhook: "Webhook (signed, Standard Webhooks)",
};

/** The triggers that compare a rate with the rule's threshold (percent), measured by the watch job. */
export const THRESHOLD_TRIGGERS = ["health_low", "signature_invalid_rate"] as const satisfies readonly AlertTrigger[];
export type ThresholdTrigger = (typeof THRESHOLD_TRIGGERS)[number];

export function isThresholdTrigger(trigger: AlertTrigger): trigger is ThresholdTrigger {
  return (THRESHOLD_TRIGGERS as readonly string[]).includes(trigger);
}

/** Rates are measured over the last this many minutes. */
export const ALERT_WINDOW_MINUTES = 15;
/** Fewer outcomes (or verified captures) than this in the window say nothing: an endpoint keeps its state. */
export const ALERT_MIN_SAMPLE = 10;
/** Rules one team may have. */
export const MAX_ALERT_RULES_PER_TEAM = 50;
/** Outbox rows read for one post: one alert, or a summary of up to this many. */
export const ALERTS_PER_POST = 100;

/** One endpoint's rate over the window: `part` of `total` (failed deliveries' complement, or invalid signatures). */
export interface MeasuredRate {
  endpointId: string;
  /** health_low: delivered; signature_invalid_rate: invalid. */
  part: number;
  total: number;
}

/**
 * Whether a measured rate is past the rule's threshold (percent), compared in whole numbers:
 * health below `threshold`% delivered, or invalid signatures above `threshold`%.
 */
export function pastThreshold(trigger: ThresholdTrigger, rate: MeasuredRate, threshold: number): boolean {
  if (rate.total < ALERT_MIN_SAMPLE) return false;
  return trigger === "health_low" ? rate.part * 100 < threshold * rate.total : rate.part * 100 > threshold * rate.total;
}

/**
 * Edge triggering: which endpoints start firing (alert once), and which fire after this
 * measurement. An endpoint past the threshold fires until a measurement with enough samples
 * finds it back within; one without enough samples keeps its state.
 */
export function nextFiring(trigger: ThresholdTrigger, threshold: number, previous: readonly string[], rates: readonly MeasuredRate[]): { started: MeasuredRate[]; firing: string[] } {
  const was = new Set(previous);
  const firing = new Set(previous);
  const started: MeasuredRate[] = [];
  for (const rate of rates) {
    if (rate.total < ALERT_MIN_SAMPLE) continue;
    if (pastThreshold(trigger, rate, threshold)) {
      firing.add(rate.endpointId);
      if (!was.has(rate.endpointId)) started.push(rate);
    } else firing.delete(rate.endpointId);
  }
  return { started, firing: [...firing].sort() };
}

/** A rate as a percent with at most one decimal: "87.5%". */
export const percent = (part: number, total: number) => `${total === 0 ? 0 : Math.round((part * 1000) / total) / 10}%`;
