import { describe, expect, it } from "vitest";
import { clipText, discordPayload, emailMessage, teamsPayload, webhookPayload, type Alert } from "../src/index.js";

// Each alert channel's payload: the channel's limits kept, and text a tenant controls never
// formatting, linking or mentioning anyone.

const at = new Date(Date.UTC(2026, 10, 25, 14, 2, 11));
const alert: Alert = {
  kind: "delivery_failed",
  title: "Webhook delivery failed",
  summary: "invoice.paid failed to forward: destination answered 503",
  fields: [
    ["Endpoint", "@everyone [click](https://evil.example) *Stripe*"],
    ["Destination", "https://api.example.com/hooks"],
  ],
  url: "https://rehook.example.com/events/0193",
  at,
};

describe("alert channels", () => {
  it("Discord: an embed with mentions off and Markdown in names escaped", () => {
    const payload = discordPayload(alert) as { allowed_mentions: unknown; embeds: Array<{ title: string; fields: Array<{ name: string; value: string }>; timestamp: string; url: string }> };
    expect(payload.allowed_mentions).toEqual({ parse: [] });
    const [embed] = payload.embeds;
    expect(embed!.title).toBe("Webhook delivery failed");
    expect(embed!.url).toBe(alert.url);
    expect(embed!.timestamp).toBe("2026-11-25T14:02:11.000Z");
    expect(embed!.fields[0]!.value).toBe("@everyone \\[click\\]\\(https://evil.example\\) \\*Stripe\\*");
  });

  it("Discord: at most 25 fields, each value within 1,024 characters", () => {
    const many: Alert = { ...alert, fields: Array.from({ length: 40 }, (_, i) => [`f${i}`, "x".repeat(5_000)] as [string, string]) };
    const [embed] = (discordPayload(many) as { embeds: Array<{ fields: Array<{ value: string }> }> }).embeds;
    expect(embed!.fields).toHaveLength(25);
    expect(Math.max(...embed!.fields.map((field) => field.value.length))).toBeLessThanOrEqual(1_024);
  });

  it("Microsoft Teams: one Adaptive Card with the fields as facts and a link to the dashboard", () => {
    const payload = teamsPayload(alert) as { type: string; attachments: Array<{ contentType: string; content: { body: Array<Record<string, unknown>>; actions: Array<{ url: string }> } }> };
    expect(payload.type).toBe("message");
    const card = payload.attachments[0]!;
    expect(card.contentType).toBe("application/vnd.microsoft.card.adaptive");
    const facts = card.content.body.find((block) => block.type === "FactSet") as { facts: Array<{ title: string; value: string }> };
    expect(facts.facts.map((fact) => fact.title)).toEqual(["Endpoint", "Destination"]);
    expect(facts.facts[0]!.value).toBe("@everyone \\[click\\]\\(https://evil.example\\) \\*Stripe\\*");
    expect(card.content.actions).toEqual([{ type: "Action.OpenUrl", title: "Open in Rehook", url: alert.url }]);
  });

  it("email: a one-line subject (no header injection) and a plain-text body with the fields and the link", () => {
    const message = emailMessage({ ...alert, summary: "line one\r\nBcc: victim@example.com" });
    expect(message.subject).toBe("[Rehook] Webhook delivery failed: line one Bcc: victim@example.com");
    expect(message.subject).not.toMatch(/[\r\n]/);
    expect(message.text).toContain("Destination  https://api.example.com/hooks");
    expect(message.text).toContain(`Open in Rehook: ${alert.url}`);
    expect(message.text).toContain("2026-11-25 14:02:11 UTC");
  });

  it("webhook: a typed JSON body with the fields by name", () => {
    expect(webhookPayload(alert)).toEqual({
      type: "alert.delivery_failed",
      timestamp: "2026-11-25T14:02:11.000Z",
      data: { title: alert.title, summary: alert.summary, fields: { Endpoint: alert.fields[0]![1], Destination: "https://api.example.com/hooks" }, url: alert.url },
    });
  });

  it("clips text with an ellipsis and never splits a surrogate pair", () => {
    expect(clipText("abcdef", 4)).toBe("abc…");
    expect(clipText("abcdef", 6)).toBe("abcdef");
    expect(clipText("ab😀cd", 4)).toBe("ab…");
  });
});
