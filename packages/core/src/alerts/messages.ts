import { ALERT_WINDOW_MINUTES, percent } from "./rules.js";
import type { Alert } from "./alert.js";

// The alerts each trigger raises, from what the outbox row points at. Text comes from tenants
// (names, event types, errors): the channels render it as plain text (see channels.ts).

export function deliveryFailedAlert(input: {
  eventType: string;
  endpointName: string;
  destinationName: string | null;
  responseStatus: number | null;
  error: string | null;
  attempts: number | null;
  at: Date;
  url: string;
}): Alert {
  const why = input.responseStatus !== null ? `the destination answered ${input.responseStatus}` : (input.error ?? "unknown error");
  return {
    kind: "delivery_failed",
    title: "Webhook delivery failed",
    summary: `${input.eventType} failed to forward: ${why}`,
    fields: [
      ["Endpoint", input.endpointName],
      ...(input.destinationName ? ([["Destination", input.destinationName]] as Array<[string, string]>) : []),
      ["Event type", input.eventType],
      ...(input.attempts !== null ? ([["Attempts", String(input.attempts)]] as Array<[string, string]>) : []),
    ],
    url: input.url,
    at: input.at,
  };
}

export function destinationPausedAlert(input: { endpointName: string; destinationName: string; reason: string; at: Date; url: string }): Alert {
  return {
    kind: "destination_paused",
    title: "Forwarding paused",
    summary: `${input.destinationName} stopped receiving events: ${input.reason}. Resume it on the endpoint's page once it is fixed.`,
    fields: [
      ["Endpoint", input.endpointName],
      ["Destination", input.destinationName],
    ],
    url: input.url,
    at: input.at,
  };
}

export function healthLowAlert(input: { endpointName: string; delivered: number; total: number; threshold: number; at: Date; url: string }): Alert {
  return {
    kind: "health_low",
    title: "Endpoint health is low",
    summary: `${input.endpointName}: ${percent(input.delivered, input.total)} of deliveries succeeded in the last ${ALERT_WINDOW_MINUTES} minutes (threshold ${input.threshold}%).`,
    fields: [
      ["Endpoint", input.endpointName],
      ["Delivered", `${input.delivered} of ${input.total}`],
      ["Threshold", `${input.threshold}%`],
    ],
    url: input.url,
    at: input.at,
  };
}

export function signatureInvalidAlert(input: { endpointName: string; invalid: number; total: number; threshold: number; at: Date; url: string }): Alert {
  return {
    kind: "signature_invalid_rate",
    title: "Invalid signatures",
    summary: `${input.endpointName}: ${percent(input.invalid, input.total)} of verified captures had an invalid signature in the last ${ALERT_WINDOW_MINUTES} minutes (threshold ${input.threshold}%).`,
    fields: [
      ["Endpoint", input.endpointName],
      ["Invalid", `${input.invalid} of ${input.total}`],
      ["Threshold", `${input.threshold}%`],
    ],
    url: input.url,
    at: input.at,
  };
}

export function bulkReplayFinishedAlert(input: { endpointName: string; done: number; delivered: number; failed: number; at: Date; url: string }): Alert {
  return {
    kind: "bulk_replay_finished",
    title: "Bulk replay finished",
    summary: `The bulk replay of ${input.endpointName} finished: ${input.delivered} of ${input.done} delivered, ${input.failed} failed.`,
    fields: [
      ["Endpoint", input.endpointName],
      ["Replayed", String(input.done)],
      ["Delivered", String(input.delivered)],
      ["Failed", String(input.failed)],
    ],
    url: input.url,
    at: input.at,
  };
}

/** The "Send a test" button's alert: the rule's own trigger, clearly marked as a test. */
export function testAlert(input: { ruleName: string; kind: Alert["kind"]; at: Date; url: string }): Alert {
  return {
    kind: input.kind,
    title: "Test alert from Rehook",
    summary: `This is a test of the alert rule "${input.ruleName}". Real alerts look like this one.`,
    fields: [["Rule", input.ruleName]],
    url: input.url,
    at: input.at,
  };
}

/** Several alerts due at once (pacing folded them): one message that lists them. */
export function summaryAlert(alerts: readonly Alert[], url: string): Alert {
  const first = alerts[0]!;
  return {
    kind: first.kind,
    title: `${alerts.length} alerts`,
    summary: alerts
      .slice(0, 10)
      .map((alert) => `• ${alert.title}: ${alert.summary}`)
      .join("\n")
      .concat(alerts.length > 10 ? `\n… and ${alerts.length - 10} more` : ""),
    fields: [],
    url,
    at: alerts.at(-1)!.at,
  };
}
