import type { ChatMessage } from "./chat-messages.js";

/** An endpoint whose circuit breaker tripped: forwarding to it waits until it is resumed. */
export interface PausedEndpoint {
  endpointName: string;
  destinationUrl: string | null;
  reason: string;
  at: Date;
}

// Block Kit limits: 150 characters of header text, 2,000 per field, 3,000 per section.
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** "Forwarding paused" for one or more endpoints; `endpointUrl` opens the (first) endpoint to resume it. */
export function forwardingPausedMessage(paused: PausedEndpoint[], endpointUrl: string): ChatMessage {
  const title = "Forwarding Paused";
  const lines = paused.map((p) => `${p.endpointName}: ${p.reason}`);
  const summary = `Forwarding to ${paused.length === 1 ? paused[0]!.endpointName : `${paused.length} endpoints`} is paused after repeated failures; new events wait until it is resumed.`;
  const latest = paused.reduce((a, b) => (a.at >= b.at ? a : b));
  return {
    text: `${title}: ${lines.join("; ")}`,
    blocks: [
      { type: "header", text: { type: "plain_text", text: title } },
      { type: "section", text: { type: "mrkdwn", text: clip(escape(summary), 3000) } },
      { type: "section", text: { type: "mrkdwn", text: clip(escape(lines.slice(0, 20).join("\n")), 3000) } },
      { type: "section", text: { type: "mrkdwn", text: `<${endpointUrl}|Open the endpoint to resume forwarding>` } },
      { type: "context", elements: [{ type: "mrkdwn", text: `Rehook · ${latest.at.toISOString().replace("T", " ").slice(0, 19)} UTC` }] },
    ],
  };
}
