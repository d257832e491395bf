import type { HeaderList } from "./headers.js";
import { scanJsonFields } from "./json-fields.js";
import { storableText, truncateText } from "./safe-text.js";

export interface SenderInput {
  headers: HeaderList;
  body: Uint8Array;
}

export interface SenderIdentity {
  source: string;
  eventType: string;
}

export const UNKNOWN = "unknown";
const MAX_LABEL_LENGTH = 200;
/** Form bodies above this are not decoded for labels: detection must stay cheap on the capture path. */
const MAX_FORM_BODY_BYTES = 1024 * 1024;

/**
 * Every JSON field a detector reads (at the top of the body, or one object down: Slack's
 * `event.type`, Mailgun's `event-data.event`). A JSON body is scanned for these only, whatever
 * its size (see scanJsonFields); BodyKey types the reads, so a detector cannot read another.
 */
const BODY_KEYS = ["type", "action", "object_kind", "event", "event_type", "event-data", "alert_name", "subscriptionType", "webhookEvent", "object"] as const;
type BodyKey = (typeof BODY_KEYS)[number];
const BODY_KEY_SET: ReadonlySet<string> = new Set(BODY_KEYS);

type Fields = Record<string, unknown>;

/** What a detector may look at: headers, and the body read once as JSON (its BODY_KEYS) or a form. */
interface Request {
  header(name: string): string | undefined;
  has(name: string): boolean;
  json(): Fields | undefined;
  form(): URLSearchParams | undefined;
}

interface Sender {
  source: string;
  matches(request: Request): boolean;
  eventType(request: Request): string | undefined;
}

function field(fields: Fields | undefined, key: BodyKey): unknown {
  return fields?.[key];
}

function stringField(fields: Fields | undefined, key: BodyKey): string | undefined {
  const value = field(fields, key);
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

function objectField(fields: Fields | undefined, key: BodyKey): Fields | undefined {
  const value = field(fields, key);
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : undefined;
}

function genericJsonType(request: Request): string | undefined {
  const body = request.json();
  return stringField(body, "type") ?? stringField(body, "event_type") ?? stringField(body, "event");
}

/** User-Agent products of senders that have no header of their own (or whose header may be stripped). */
const USER_AGENT_SENDERS: Array<[RegExp, string]> = [
  [/^GitHub-Hookshot\//i, "github"],
  [/^GitLab\//i, "gitlab"],
  [/^Bitbucket-Webhooks\//i, "bitbucket"],
  [/^Shopify-Captain-Hook/i, "shopify"],
  [/^Slackbot/i, "slack"],
  [/^TwilioProxy\/|^Twilio/i, "twilio"],
  [/^SendGrid/i, "sendgrid"],
  [/^Mailgun/i, "mailgun"],
  [/^Zapier/i, "zapier"],
  [/^PayPal/i, "paypal"],
  [/^Linear-Webhook/i, "linear"],
  [/^Svix-Webhooks\//i, "svix"],
  [/^Typeform-Webhooks/i, "typeform"],
  [/^Paddle/i, "paddle"],
  [/^Intercom-Webhooks/i, "intercom"],
  [/^Zoom Marketplace/i, "zoom"],
  [/^HubSpot/i, "hubspot"],
  [/^Square Connect/i, "square"],
  [/^Discord-Interactions/i, "discord"],
  [/^Sentry/i, "sentry"],
  [/^Vercel/i, "vercel"],
  [/^Atlassian Webhook|^Atlassian-Connect/i, "jira"],
  [/^Calendly/i, "calendly"],
  [/^Mandrill-Webhook/i, "mailchimp"],
  [/^MailChimp/i, "mailchimp"],
  [/^Postmark/i, "postmark"],
  [/^Pusher/i, "pusher"],
  [/^Segment\.io/i, "segment"],
  [/^Netlify/i, "netlify"],
  [/^CircleCI/i, "circleci"],
  [/^Buildkite-Request/i, "buildkite"],
  [/^Docker-Hub/i, "docker-hub"],
  [/^Google-Alerts|^APIs-Google/i, "google"],
  [/^Microsoft-Teams|^Azure-/i, "microsoft"],
];

const joined = (type: string | undefined, action: string | undefined) => (type && action ? `${type}.${action}` : type);

/** Well-known senders, most specific first. */
const SENDERS: Sender[] = [
  {
    source: "stripe",
    matches: (r) => r.has("stripe-signature") || /^Stripe\//.test(r.header("user-agent") ?? ""),
    eventType: (r) => stringField(r.json(), "type"),
  },
  {
    source: "github",
    matches: (r) => r.has("x-github-event"),
    eventType: (r) => {
      const event = r.header("x-github-event");
      const action = stringField(r.json(), "action");
      return event && action ? `${event}.${action}` : event;
    },
  },
  {
    source: "gitlab",
    matches: (r) => r.has("x-gitlab-event"),
    eventType: (r) => stringField(r.json(), "object_kind") ?? r.header("x-gitlab-event"),
  },
  {
    source: "shopify",
    matches: (r) => r.has("x-shopify-topic") || r.has("x-shopify-hmac-sha256"),
    eventType: (r) => r.header("x-shopify-topic"),
  },
  {
    source: "slack",
    matches: (r) => r.has("x-slack-signature"),
    eventType: (r) => {
      const body = r.json();
      if (body) {
        const type = stringField(body, "type");
        return type === "event_callback" ? (stringField(objectField(body, "event"), "type") ?? type) : type;
      }
      const form = r.form();
      const payload = form?.get("payload");
      if (payload) return stringField(parseJsonObject(payload), "type");
      if (form?.get("command")) return "slash_command";
      return undefined;
    },
  },
  {
    source: "twilio",
    matches: (r) => r.has("x-twilio-signature"),
    eventType: (r) => {
      const events = r.json();
      if (events) return stringField(events, "type");
      const form = r.form();
      if (!form) return undefined;
      const messageStatus = form.get("MessageStatus") ?? form.get("SmsStatus");
      if (messageStatus) return `message.${messageStatus}`;
      const callStatus = form.get("CallStatus");
      if (callStatus) return `call.${callStatus}`;
      return form.get("EventType") ?? undefined;
    },
  },
  {
    source: "svix",
    matches: (r) => r.has("svix-id") && r.has("svix-signature"),
    eventType: (r) => stringField(r.json(), "type"),
  },
  {
    source: "standard-webhooks",
    matches: (r) => r.has("webhook-id") && r.has("webhook-signature"),
    eventType: (r) => stringField(r.json(), "type"),
  },
  ...headerSenders(),
];

/**
 * Senders told apart by one well-known header (or User-Agent product) alone, their event type
 * from a header when they send one, else the JSON body's usual fields. Checked after the
 * table above, before the generic User-Agent product and "unknown".
 */
function headerSenders(): Sender[] {
  const byHeader = (source: string, headers: string[], typeHeader?: string, typeField?: (body: Fields | undefined) => string | undefined): Sender => ({
    source,
    matches: (r) => headers.some((name) => r.has(name)),
    eventType: (r) => (typeHeader ? r.header(typeHeader) : undefined) ?? typeField?.(r.json()),
  });
  return [
    byHeader("bitbucket", ["x-event-key", "x-hook-uuid"], "x-event-key"),
    byHeader("paddle", ["paddle-signature"], undefined, (body) => stringField(body, "event_type") ?? stringField(body, "alert_name")),
    byHeader("typeform", ["typeform-signature"], undefined, (body) => stringField(body, "event_type")),
    byHeader("linear", ["linear-signature", "linear-delivery"], "linear-event", (body) => joined(stringField(body, "type"), stringField(body, "action"))),
    byHeader("sendgrid", ["x-twilio-email-event-webhook-signature"], undefined, (body) => stringField(body, "event")),
    byHeader("mailgun", ["x-mailgun-signature", "x-mailgun-signature-v2"], undefined, (body) => stringField(objectField(body, "event-data"), "event")),
    byHeader("zoom", ["x-zm-signature"], undefined, (body) => stringField(body, "event")),
    byHeader("hubspot", ["x-hubspot-signature", "x-hubspot-signature-v3"], undefined, (body) => stringField(body, "subscriptionType")),
    byHeader("square", ["x-square-hmacsha256-signature", "x-square-signature"], undefined, (body) => stringField(body, "type")),
    byHeader("paypal", ["paypal-transmission-id", "paypal-transmission-sig"], undefined, (body) => stringField(body, "event_type")),
    byHeader("mailchimp", ["x-mandrill-signature"]),
    byHeader("discord", ["x-signature-ed25519"], undefined, (body) => interactionType(body)),
    byHeader("sentry", ["sentry-hook-resource", "sentry-hook-signature"], "sentry-hook-resource", (body) => stringField(body, "action")),
    byHeader("vercel", ["x-vercel-signature"], undefined, (body) => stringField(body, "type")),
    byHeader("clerk", ["clerk-signature"], undefined, (body) => stringField(body, "type")),
    byHeader("resend", ["resend-signature"], undefined, (body) => stringField(body, "type")),
    byHeader("jira", ["x-atlassian-webhook-identifier"], undefined, (body) => stringField(body, "webhookEvent")),
    byHeader("docusign", ["x-docusign-signature-1"], undefined, (body) => stringField(body, "event")),
    byHeader("calendly", ["calendly-webhook-signature"], undefined, (body) => stringField(body, "event")),
    byHeader("zapier", ["x-zapier-signature"]),
    byHeader("gitea", ["x-gitea-event"], "x-gitea-event"),
    // Meta (Facebook, Instagram, WhatsApp) signs with the GitHub-style header too: told apart by its User-Agent.
    { source: "meta", matches: (r) => /^facebookexternalua/i.test(r.header("user-agent") ?? ""), eventType: (r) => stringField(r.json(), "object") },
    // The GitHub-style signature without X-GitHub-Event (a proxy kept one header, not the other).
    byHeader("github", ["x-hub-signature-256"], "x-github-event"),
    // Standard Webhooks / Svix with one header of the pair missing (e.g. a proxy dropped the signature).
    byHeader("svix", ["svix-id"], undefined, (body) => stringField(body, "type")),
    byHeader("standard-webhooks", ["webhook-id"], undefined, (body) => stringField(body, "type")),
    ...USER_AGENT_SENDERS.map(([pattern, source]): Sender => ({
      source,
      matches: (r) => pattern.test(r.header("user-agent") ?? ""),
      eventType: () => undefined,
    })),
  ];
}

/** Discord interaction types by number (1 ping, 2 application command, ...), events by their `event.type`. */
function interactionType(body: Fields | undefined): string | undefined {
  const names: Record<number, string> = { 1: "ping", 2: "application_command", 3: "message_component", 4: "autocomplete", 5: "modal_submit" };
  const type = field(body, "type");
  if (typeof type === "number") return names[type] ?? String(type);
  return stringField(objectField(body, "event"), "type");
}

function parseJsonObject(text: string): Fields | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Fields) : undefined;
  } catch {
    return undefined;
  }
}

const decoder = new TextDecoder("utf-8", { fatal: false });

function describeRequest(input: SenderInput): Request {
  // First value of each header by lowercase name: the sender table asks for a dozen names.
  const byName = new Map<string, string>();
  for (const [name, value] of input.headers) {
    const key = name.toLowerCase();
    if (!byName.has(key)) byName.set(key, value);
  }
  let text: string | undefined;
  const bodyText = () => (text ??= input.body.byteLength <= MAX_FORM_BODY_BYTES ? decoder.decode(input.body) : "");
  let json: Fields | undefined | null = null;
  let form: URLSearchParams | undefined | null = null;
  const contentType = (byName.get("content-type") ?? "").toLowerCase();
  return {
    header: (name) => byName.get(name),
    has: (name) => byName.has(name),
    json() {
      // The whole body, streamed: a JSON.parse of a 10 MiB body would cost the capture path dearly.
      // A batch (a JSON array: Twilio Event Streams, CloudEvents) is read by its first element.
      if (json === null) json = scanJsonFields(input.body, BODY_KEY_SET);
      return json;
    },
    form() {
      if (form === null) {
        form = contentType.startsWith("application/x-www-form-urlencoded") ? new URLSearchParams(bodyText()) : undefined;
      }
      return form;
    },
  };
}

/** The product token of a User-Agent ("PostmanRuntime/7.36.1 ..." -> "postmanruntime"). */
function userAgentProduct(userAgent: string | undefined): string | undefined {
  const product = userAgent?.trim().split(/[\s/;(]/, 1)[0];
  return product ? product.toLowerCase() : undefined;
}

/** Control characters (C0, DEL, C1): a label is one line of display text. */
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/g;

/**
 * A label fit to store and show, whatever the payload held: NUL, other control characters
 * and lone surrogates become U+FFFD, and the cut at MAX_LABEL_LENGTH never splits a
 * surrogate pair (half an emoji would make PostgreSQL refuse the whole capture).
 */
function clean(label: string | undefined): string | undefined {
  const trimmed = label?.trim();
  return trimmed ? truncateText(storableText(trimmed).replace(CONTROL, "\uFFFD"), MAX_LABEL_LENGTH) : undefined;
}

/**
 * Names the service that sent a request and the type of event it reports:
 * a table of well-known senders first (signature and event headers, then User-Agent
 * products), then a JSON `type`/`event_type`/`event`
 * field and the User-Agent product, then "unknown".
 */
export function detectSender(input: SenderInput): SenderIdentity {
  const request = describeRequest(input);
  const known = SENDERS.find((sender) => sender.matches(request));
  const source = known?.source ?? clean(userAgentProduct(request.header("user-agent"))) ?? UNKNOWN;
  const eventType = clean(known?.eventType(request)) ?? clean(genericJsonType(request)) ?? UNKNOWN;
  return { source, eventType };
}
