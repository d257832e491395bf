import { describe, expect, it } from "vitest";
import { detectSender, type HeaderList } from "../src/index.js";

function detect(headers: HeaderList, body: string | Uint8Array = "") {
  return detectSender({ headers, body: typeof body === "string" ? Buffer.from(body) : body });
}

const json = (value: unknown) => JSON.stringify(value);
const JSON_TYPE: [string, string] = ["Content-Type", "application/json"];
const FORM_TYPE: [string, string] = ["Content-Type", "application/x-www-form-urlencoded"];

describe("sender detection", () => {
  it("Stripe: Stripe-Signature header, event type from the JSON type", () => {
    expect(
      detect([JSON_TYPE, ["Stripe-Signature", "t=1,v1=abc"], ["User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)"]],
        json({ id: "evt_1", object: "event", type: "payment_intent.succeeded" })),
    ).toEqual({ source: "stripe", eventType: "payment_intent.succeeded" });
  });

  it("GitHub: X-GitHub-Event plus the payload's action", () => {
    expect(detect([JSON_TYPE, ["X-GitHub-Event", "pull_request"]], json({ action: "opened" }))).toEqual({
      source: "github",
      eventType: "pull_request.opened",
    });
    expect(detect([JSON_TYPE, ["X-GitHub-Event", "push"]], json({ ref: "refs/heads/main" }))).toEqual({
      source: "github",
      eventType: "push",
    });
  });

  it("GitLab: object_kind, else the X-Gitlab-Event header", () => {
    expect(detect([JSON_TYPE, ["X-Gitlab-Event", "Push Hook"]], json({ object_kind: "push" }))).toEqual({
      source: "gitlab",
      eventType: "push",
    });
  });

  it("Shopify: X-Shopify-Topic", () => {
    expect(detect([JSON_TYPE, ["X-Shopify-Topic", "orders/create"], ["X-Shopify-Hmac-Sha256", "x"]], json({ id: 1 }))).toEqual({
      source: "shopify",
      eventType: "orders/create",
    });
  });

  it("Slack: the inner event type of an event_callback, url_verification as is", () => {
    const signed: HeaderList = [JSON_TYPE, ["X-Slack-Signature", "v0=abc"], ["X-Slack-Request-Timestamp", "1"]];
    expect(detect(signed, json({ type: "event_callback", event: { type: "app_mention" } }))).toEqual({
      source: "slack",
      eventType: "app_mention",
    });
    expect(detect(signed, json({ type: "url_verification", challenge: "x" })).eventType).toBe("url_verification");
  });

  it("Slack: interactivity payloads and slash commands arrive form-encoded", () => {
    const form: HeaderList = [FORM_TYPE, ["X-Slack-Signature", "v0=abc"]];
    const payload = new URLSearchParams({ payload: json({ type: "block_actions" }) }).toString();
    expect(detect(form, payload)).toEqual({ source: "slack", eventType: "block_actions" });
    expect(detect(form, "command=%2Fweather&text=94070")).toEqual({ source: "slack", eventType: "slash_command" });
  });

  it("Twilio: message and call status callbacks (form), Event Streams (JSON array)", () => {
    const form: HeaderList = [FORM_TYPE, ["X-Twilio-Signature", "abc="]];
    expect(detect(form, "MessageSid=SM1&MessageStatus=delivered")).toEqual({ source: "twilio", eventType: "message.delivered" });
    expect(detect(form, "CallSid=CA1&CallStatus=completed")).toEqual({ source: "twilio", eventType: "call.completed" });
    expect(
      detect([JSON_TYPE, ["X-Twilio-Signature", "abc="]], json([{ type: "com.twilio.messaging.message.delivered" }])),
    ).toEqual({ source: "twilio", eventType: "com.twilio.messaging.message.delivered" });
  });

  it("Svix: svix-id and svix-signature headers", () => {
    expect(
      detect([JSON_TYPE, ["svix-id", "msg_1"], ["svix-timestamp", "1"], ["svix-signature", "v1,abc"]], json({ type: "user.created" })),
    ).toEqual({ source: "svix", eventType: "user.created" });
  });

  it("Standard Webhooks: webhook-id and webhook-signature headers", () => {
    expect(
      detect([JSON_TYPE, ["webhook-id", "msg_1"], ["webhook-timestamp", "1"], ["webhook-signature", "v1,abc"]], json({ type: "invoice.paid" })),
    ).toEqual({ source: "standard-webhooks", eventType: "invoice.paid" });
  });

  it("generic: JSON type, event_type or event field, and the User-Agent product", () => {
    expect(detect([JSON_TYPE, ["User-Agent", "PostmanRuntime/7.36.1"]], json({ type: "order.paid" }))).toEqual({
      source: "postmanruntime",
      eventType: "order.paid",
    });
    expect(detect([JSON_TYPE], json({ event_type: "build.finished" })).eventType).toBe("build.finished");
    expect(detect([JSON_TYPE], json({ event: "deploy" })).eventType).toBe("deploy");
  });

  it.each<[string, HeaderList, string, string]>([
    ["Bitbucket: X-Event-Key", [JSON_TYPE, ["X-Event-Key", "repo:push"], ["X-Hook-UUID", "u"]], "{}", "bitbucket repo:push"],
    ["Paddle: Paddle-Signature", [JSON_TYPE, ["Paddle-Signature", "ts=1;h1=x"]], json({ event_type: "transaction.completed" }), "paddle transaction.completed"],
    ["Typeform: Typeform-Signature", [JSON_TYPE, ["Typeform-Signature", "sha256=x"]], json({ event_type: "form_response" }), "typeform form_response"],
    ["Linear: Linear-Signature, type and action", [JSON_TYPE, ["Linear-Signature", "x"]], json({ type: "Issue", action: "create" }), "linear Issue.create"],
    ["Linear: Linear-Event header first", [JSON_TYPE, ["Linear-Delivery", "d"], ["Linear-Event", "Comment"]], json({ type: "Issue" }), "linear Comment"],
    ["SendGrid: its signature header", [JSON_TYPE, ["X-Twilio-Email-Event-Webhook-Signature", "x"]], json([{ event: "delivered" }]), "sendgrid delivered"],
    ["Mailgun: event-data.event", [JSON_TYPE, ["X-Mailgun-Signature-V2", "x"]], json({ "event-data": { event: "opened" } }), "mailgun opened"],
    ["PayPal: transmission headers", [JSON_TYPE, ["PAYPAL-TRANSMISSION-ID", "x"]], json({ event_type: "PAYMENT.CAPTURE.COMPLETED" }), "paypal PAYMENT.CAPTURE.COMPLETED"],
    ["Discord: numeric interaction type", [JSON_TYPE, ["X-Signature-Ed25519", "x"]], json({ type: 1 }), "discord ping"],
    ["Sentry: resource header", [JSON_TYPE, ["Sentry-Hook-Resource", "issue"]], json({ action: "created" }), "sentry issue"],
    ["Gitea: X-Gitea-Event", [JSON_TYPE, ["X-Gitea-Event", "push"]], "{}", "gitea push"],
    ["GitHub-style signature alone", [JSON_TYPE, ["X-Hub-Signature-256", "sha256=x"]], json({ type: "x" }), "github x"],
    ["Meta: its User-Agent before the GitHub-style signature", [JSON_TYPE, ["X-Hub-Signature-256", "sha256=x"], ["User-Agent", "facebookexternalua"]], json({ object: "page" }), "meta page"],
    ["svix-id without its signature", [JSON_TYPE, ["svix-id", "msg_1"]], json({ type: "user.created" }), "svix user.created"],
    ["webhook-id without its signature", [JSON_TYPE, ["webhook-id", "msg_1"]], json({ type: "a.b" }), "standard-webhooks a.b"],
    ["GitHub-Hookshot User-Agent", [JSON_TYPE, ["User-Agent", "GitHub-Hookshot/abc123"]], json({ zen: "x" }), "github unknown"],
    ["Shopify-Captain-Hook User-Agent", [JSON_TYPE, ["User-Agent", "Shopify-Captain-Hook"]], json({ id: 1 }), "shopify unknown"],
    ["Slackbot User-Agent", [JSON_TYPE, ["User-Agent", "Slackbot 1.0 (+https://api.slack.com/robots)"]], json({ type: "url_verification" }), "slack url_verification"],
    ["TwilioProxy User-Agent", [FORM_TYPE, ["User-Agent", "TwilioProxy/1.1"]], "MessageStatus=sent", "twilio unknown"],
    ["SendGrid User-Agent", [JSON_TYPE, ["User-Agent", "SendGrid Event API"]], json([{ event: "open" }]), "sendgrid open"],
    ["Mailgun User-Agent", [JSON_TYPE, ["User-Agent", "mailgun/treq-16.12.0"]], "{}", "mailgun unknown"],
    ["Zapier User-Agent", [JSON_TYPE, ["User-Agent", "Zapier"]], json({ event: "zap" }), "zapier zap"],
    ["PayPal User-Agent", [JSON_TYPE, ["User-Agent", "PayPal/AUHR-214.0-58071290"]], "{}", "paypal unknown"],
    ["Linear User-Agent", [JSON_TYPE, ["User-Agent", "Linear-Webhook"]], json({ type: "Issue" }), "linear Issue"],
    ["Svix User-Agent", [JSON_TYPE, ["User-Agent", "Svix-Webhooks/1.21.0"]], json({ type: "a" }), "svix a"],
  ])("%s", (_, headers, body, expected) => {
    const { source, eventType } = detect(headers, body);
    expect(`${source} ${eventType}`).toBe(expected);
  });

  it("the table's headers come before a generic User-Agent product", () => {
    expect(detect([JSON_TYPE, ["X-Event-Key", "repo:push"], ["User-Agent", "curl/8.0"]], "{}").source).toBe("bitbucket");
    expect(detect([JSON_TYPE, ["User-Agent", "curl/8.0"]], "{}").source).toBe("curl");
  });

  describe("large JSON bodies: the whole body is scanned, not a prefix", () => {
    const STRIPE: HeaderList = [JSON_TYPE, ["Stripe-Signature", "t=1,v1=abc"]];
    /** A Stripe-like event of about `bytes`, its type first and the bulk in data.object. */
    const stripeEvent = (bytes: number) => json({ id: "evt_1", object: "event", type: "invoice.paid", data: { object: { lines: "l".repeat(bytes) } } });
    /** Rows of nested objects `bytes` long, then the type: the type key comes after the big object. */
    const typeLast = (bytes: number) => {
      const row = json({ id: "row", sku: "SKU-1", price: { amount: 3, currency: "EUR", tags: ["a", "b\"}"] } });
      return `{"object":"event","data":{"rows":[${Array.from({ length: Math.ceil(bytes / row.length) }, () => row).join(",")}]},"type":"export.ready"}`;
    };

    it("a 300 KB Stripe-like event", () => {
      const body = stripeEvent(300_000);
      expect(Buffer.byteLength(body)).toBeGreaterThan(300_000);
      expect(detect(STRIPE, body)).toEqual({ source: "stripe", eventType: "invoice.paid" });
      expect(detect([JSON_TYPE], typeLast(300_000))).toEqual({ source: "unknown", eventType: "export.ready" });
    });

    it("a 5 MiB Stripe-like event, the type first or after a big nested object", () => {
      expect(detect(STRIPE, stripeEvent(5 * 1024 * 1024))).toEqual({ source: "stripe", eventType: "invoice.paid" });
      const body = typeLast(5 * 1024 * 1024);
      expect(Buffer.byteLength(body)).toBeGreaterThan(5 * 1024 * 1024);
      expect(detect(STRIPE, body)).toEqual({ source: "stripe", eventType: "export.ready" });
      expect(detect([JSON_TYPE], body)).toEqual({ source: "unknown", eventType: "export.ready" });
    });

    it("nested fields of big bodies: Slack's event.type, Mailgun's event-data.event, a batch's first element", () => {
      const bulk = "b".repeat(2 * 1024 * 1024);
      const slack = json({ token: "t", bulk: { text: bulk }, type: "event_callback", event: { blocks: [{ type: "section" }], text: bulk, type: "app_mention" } });
      expect(detect([JSON_TYPE, ["X-Slack-Signature", "v0=abc"]], slack)).toEqual({ source: "slack", eventType: "app_mention" });
      const mailgun = json({ signature: { token: bulk }, "event-data": { message: { headers: { event: "not this" } }, event: "delivered" } });
      expect(detect([JSON_TYPE, ["X-Mailgun-Signature-V2", "s"]], mailgun).eventType).toBe("delivered");
      const batch = json([{ data: bulk, type: "com.twilio.messaging.message.delivered" }, { type: "second" }]);
      expect(detect([JSON_TYPE, ["X-Twilio-Signature", "s"]], batch).eventType).toBe("com.twilio.messaging.message.delivered");
    });

    it("a big body cut short or broken at its top level has no type", () => {
      const body = typeLast(2 * 1024 * 1024);
      expect(detect([JSON_TYPE], body.slice(0, -1)).eventType).toBe("unknown");
      expect(detect([JSON_TYPE], `${body.slice(0, -1)},}`).eventType).toBe("unknown");
      expect(detect([JSON_TYPE], `${body.slice(0, 1024)}]}]}`).eventType).toBe("unknown");
    });
  });

  it("unknown when nothing identifies the sender", () => {
    expect(detect([], "")).toEqual({ source: "unknown", eventType: "unknown" });
    expect(detect([JSON_TYPE], "{not json")).toEqual({ source: "unknown", eventType: "unknown" });
    expect(detect([], Buffer.from([0, 255, 254, 1]))).toEqual({ source: "unknown", eventType: "unknown" });
  });

  it("matches header names case-insensitively", () => {
    expect(detect([["x-github-event", "ping"]], "{}")).toEqual({ source: "github", eventType: "ping" });
  });

  describe("poison labels: stored sanitised, so PostgreSQL never refuses the capture", () => {
    const longCut = "x".repeat(199) + "\u{1F600}"; // the 200th unit is the first half of the emoji

    it.each([
      ["NUL", "invoice\u0000paid", "invoice\uFFFDpaid"],
      ["a lone high surrogate", "invoice\ud800paid", "invoice\uFFFDpaid"],
      ["a lone low surrogate", "\udc00paid", "\uFFFDpaid"],
      ["a cut inside a surrogate pair", longCut, "x".repeat(199)],
      ["other control characters", "a\nb\u001b[31mc\u0085", "a\uFFFDb\uFFFD[31mc\uFFFD"],
    ])("JSON type with %s", (_, type, expected) => {
      for (const field of ["type", "event_type", "event"]) {
        expect(detect([JSON_TYPE], json({ [field]: type })).eventType, field).toBe(expected);
      }
    });

    it("keeps whole emoji and labels of exactly 200 units", () => {
      expect(detect([JSON_TYPE], json({ type: "deploy \u{1F680} done" })).eventType).toBe("deploy \u{1F680} done");
      const exact = "y".repeat(198) + "\u{1F600}";
      expect(detect([JSON_TYPE], json({ type: exact })).eventType).toBe(exact);
    });

    it("sanitises the fields of every sender table entry", () => {
      expect(detect([JSON_TYPE, ["X-GitHub-Event", "push"]], json({ action: "op\u0000ened" })).eventType).toBe("push.op\uFFFDened");
      expect(detect([JSON_TYPE, ["Stripe-Signature", "t=1"]], json({ type: "\ud83d" })).eventType).toBe("\uFFFD");
      const slackPayload = new URLSearchParams({ payload: json({ type: "block\u0000actions\udfff" }) }).toString();
      expect(detect([FORM_TYPE, ["X-Slack-Signature", "v0=1"]], slackPayload).eventType).toBe("block\uFFFDactions\uFFFD");
      const twilio = new URLSearchParams({ MessageStatus: "deli\u0000vered" + "z".repeat(300) }).toString();
      const label = detect([FORM_TYPE, ["X-Twilio-Signature", "s"]], twilio).eventType;
      expect(label.startsWith("message.deli\uFFFDvered")).toBe(true);
      expect(label).toHaveLength(200);
      const twilioEmoji = new URLSearchParams({ CallStatus: "c".repeat(194) + "\u{1F4DE}" }).toString();
      expect(detect([FORM_TYPE, ["X-Twilio-Signature", "s"]], twilioEmoji).eventType).toBe(`call.${"c".repeat(194)}`);
    });

    it("never leaves NUL or a lone surrogate in any label, whatever the input", () => {
      const wellFormed = (text: string) => !/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
      for (let length = 195; length <= 205; length += 1) {
        for (const tail of ["\u{1F600}", "\ud800", "\udc00", "\u0000", "\u{1F600}\u{1F600}"]) {
          const type = "t".repeat(length) + tail;
          const { eventType } = detect([JSON_TYPE], json({ type }));
          expect(wellFormed(eventType), `${length} ${JSON.stringify(tail)}`).toBe(true);
          expect(eventType.length).toBeLessThanOrEqual(200);
        }
      }
    });
  });
});
