import { signStandardWebhook } from "../standard-webhooks.js";
import { alertTime, clipText, type Alert } from "./alert.js";

/*
 * The payload of each alert channel. Text a tenant controls (endpoint names, event types,
 * error texts) goes into plain-text fields, or is escaped for the channel's markup, so it can
 * neither format nor add links and mentions.
 */

// Discord: an embed (title 256, description 4,096, up to 25 fields of 256/1,024, 6,000 in all).
// Mentions are switched off, so "@everyone" in a name pings nobody.
const DISCORD_FIELDS = 25;
const escapeDiscord = (text: string) => text.replace(/([\\*_~`|>#[\]()-])/g, "\\$1");

export function discordPayload(alert: Alert): Record<string, unknown> {
  return {
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title: clipText(alert.title, 256),
        description: clipText(escapeDiscord(alert.summary), 2_000),
        url: alert.url,
        timestamp: alert.at.toISOString(),
        color: alert.kind === "bulk_replay_finished" ? 0x2f9e44 : 0xe03131,
        fields: alert.fields.slice(0, DISCORD_FIELDS).map(([name, value]) => ({ name: clipText(name, 256), value: clipText(escapeDiscord(value), 1_000) || "—", inline: true })),
        footer: { text: "Rehook" },
      },
    ],
  };
}

// Microsoft Teams (Workflows "post to a channel when a webhook request is received"): a
// message with one Adaptive Card. TextBlocks are plain text unless they hold Markdown; the
// FactSet shows the fields. A card is at most about 28 KB: the texts are clipped well below.
const escapeTeams = (text: string) => text.replace(/([\\*_~`>#[\]()<-])/g, "\\$1");

export function teamsPayload(alert: Alert): Record<string, unknown> {
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body: [
            { type: "TextBlock", text: clipText(escapeTeams(alert.title), 200), weight: "Bolder", size: "Medium", wrap: true },
            { type: "TextBlock", text: clipText(escapeTeams(alert.summary), 2_000), wrap: true },
            { type: "FactSet", facts: alert.fields.slice(0, 20).map(([title, value]) => ({ title: clipText(escapeTeams(title), 100), value: clipText(escapeTeams(value), 1_000) })) },
            { type: "TextBlock", text: `Rehook · ${alertTime(alert.at)}`, isSubtle: true, size: "Small", wrap: true },
          ],
          actions: [{ type: "Action.OpenUrl", title: "Open in Rehook", url: alert.url }],
        },
      },
    ],
  };
}

/** An email: a subject on one line (no header injection) and a plain-text body. */
export function emailMessage(alert: Alert): { subject: string; text: string } {
  const subject = clipText(`[Rehook] ${alert.title}: ${alert.summary}`.replace(/[\r\n]+/g, " "), 200);
  const width = Math.max(0, ...alert.fields.map(([label]) => label.length));
  const text = [
    alert.summary,
    "",
    ...alert.fields.map(([label, value]) => `${label.padEnd(width)}  ${value.replace(/[\r\n]+/g, " ")}`),
    "",
    `Open in Rehook: ${alert.url}`,
    `${alertTime(alert.at)}`,
  ].join("\n");
  return { subject, text };
}

/** The generic webhook's JSON body (signed by the sender with the rule's whsec_ secret, Standard Webhooks). */
export function webhookPayload(alert: Alert): { type: string; timestamp: string; data: Record<string, unknown> } {
  return {
    type: `alert.${alert.kind}`,
    timestamp: alert.at.toISOString(),
    data: { title: alert.title, summary: alert.summary, fields: Object.fromEntries(alert.fields), url: alert.url },
  };
}

// Slack-compatible incoming webhooks: Block Kit with plain_text everywhere, so nothing a tenant
// wrote is read as mrkdwn (no formatting, links or mentions); a button opens the dashboard.
export function slackPayload(alert: Alert): { text: string; blocks: Array<Record<string, unknown>> } {
  const fields = alert.fields.slice(0, 10).map(([label, value]) => ({ type: "plain_text", text: clipText(`${label}: ${value}`, 2_000) }));
  return {
    text: clipText(`${alert.title}: ${alert.summary}`, 3_000),
    blocks: [
      { type: "header", text: { type: "plain_text", text: clipText(alert.title, 150) } },
      { type: "section", text: { type: "plain_text", text: clipText(alert.summary, 3_000) } },
      ...(fields.length > 0 ? [{ type: "section", fields }] : []),
      { type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Open in Rehook" }, url: alert.url }] },
      { type: "context", elements: [{ type: "plain_text", text: `Rehook · ${alertTime(alert.at)}` }] },
    ],
  };
}

/** An HTTP channel's request: its JSON body and headers (the webhook channel's signed, Standard Webhooks). */
export function alertRequest(
  channel: "slack" | "discord" | "teams" | "webhook",
  alert: Alert,
  signing: { secret: string | null; messageId: string; nowSeconds: number },
): { headers: Array<[string, string]>; body: Buffer } {
  const payload = channel === "slack" ? slackPayload(alert) : channel === "discord" ? discordPayload(alert) : channel === "teams" ? teamsPayload(alert) : webhookPayload(alert);
  const body = Buffer.from(JSON.stringify(payload));
  const headers: Array<[string, string]> = [["Content-Type", "application/json"]];
  if (channel === "webhook" && signing.secret) {
    const signed = signStandardWebhook({ id: signing.messageId, timestampSeconds: signing.nowSeconds, body, secret: signing.secret });
    headers.push(["webhook-id", signed["webhook-id"]], ["webhook-timestamp", signed["webhook-timestamp"]], ["webhook-signature", signed["webhook-signature"]]);
  }
  return { headers, body };
}
