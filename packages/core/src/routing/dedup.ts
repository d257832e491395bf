import { createHash } from "node:crypto";
import { z } from "zod";
import { HTTP_TOKEN } from "../http-syntax.js";
import { scanJsonFields } from "../json-fields.js";
import { isStorableText } from "../safe-text.js";

/**
 * Ingress deduplication, its pure part: an endpoint's `dedup: {key, window_s}` setting and
 * the key of a request under it. A request whose key equals an earlier one's within the
 * window is stored but not forwarded; a request without a key (null) is never a duplicate,
 * so every doubt here resolves to null, or to a key that tells more values apart, never to
 * one that could merge two distinct deliveries.
 *
 * "auto": the provider's own delivery id, the first found in this table (headers first,
 * then the body fields read only for the detected source). Each id is tagged with its
 * provider, so equal ids of two providers never collide.
 *
 *   provider           where the id is                                    across retries
 *   standard-webhooks  header webhook-id, else svix-id (Svix's name for     kept (the spec's message id)
 *                      the same message id: one tag for both)
 *   github             header X-GitHub-Delivery                           kept by redeliveries
 *   shopify            header X-Shopify-Webhook-Id                        kept
 *   gitlab             header Idempotency-Key, when source is "gitlab"    kept (GitLab 17.4+)
 *   jira               header X-Atlassian-Webhook-Identifier              kept
 *   linear             header Linear-Delivery                             one per payload (retries undocumented)
 *   twilio             header I-Twilio-Idempotency-Token                  kept
 *   stripe             body "id" ("evt_…"), when source is "stripe"       kept (the event's id)
 *   slack              body "event_id", when source is "slack"            kept (Events API; forms have none)
 *   paddle             body "event_id" ("evt_…"), when source is "paddle" kept (Paddle's advised key)
 *
 * Left out on purpose: X-Request-Id and a bare Idempotency-Key (any client sets them, with
 * no promise of uniqueness); X-Gitlab-Event-UUID (webhooks triggered by an earlier webhook
 * share its value, so two distinct deliveries can carry one); Bitbucket's X-Hook-UUID (it
 * names the webhook, not the delivery).
 */

export const MAX_DEDUP_WINDOW_S = 604_800;
export const MAX_DEDUP_HEADER_NAME_LENGTH = 256;
export const MAX_DEDUP_JSON_PATH_LENGTH = 256;

/** A path segment that indexes an array: canonical decimal ("007" is no index). */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,8})$/;

const windowMessage = `the dedup window_s must be a whole number of seconds from 1 to ${MAX_DEDUP_WINDOW_S.toLocaleString("en-US")} (7 days)`;
const headerMessage = `the dedup header must be an HTTP header name (letters, digits and -), at most ${MAX_DEDUP_HEADER_NAME_LENGTH} characters`;
const jsonMessage = `the dedup json path must be a dotted path of non-empty segments (e.g. data.object.id or items.0.id), at most ${MAX_DEDUP_JSON_PATH_LENGTH} characters`;

const isJsonPath = (path: string) => path.split(".").every((segment) => segment !== "") && isStorableText(path);

const headerKeySchema = z.strictObject({
  header: z.string(headerMessage).max(MAX_DEDUP_HEADER_NAME_LENGTH, headerMessage).regex(HTTP_TOKEN, headerMessage),
});

const jsonKeySchema = z.strictObject({
  json: z.string(jsonMessage).min(1, jsonMessage).max(MAX_DEDUP_JSON_PATH_LENGTH, jsonMessage).refine(isJsonPath, jsonMessage),
});

/** An endpoint's deduplication setting. Header names keep the case they were written in (for display). */
export const dedupRuleSchema = z.strictObject({
  key: z.union([z.literal("auto"), z.literal("body"), headerKeySchema, jsonKeySchema], {
    error: 'the dedup key must be "auto", "body", {"header": NAME} or {"json": "dotted.path"}',
  }),
  window_s: z.number(windowMessage).int(windowMessage).min(1, windowMessage).max(MAX_DEDUP_WINDOW_S, windowMessage),
});

export type DedupRule = z.infer<typeof dedupRuleSchema>;

export interface DedupRequest {
  headers: Array<[string, string]>;
  body: Uint8Array;
  /** The sender detected for the request (senders.ts), e.g. "stripe". */
  source: string;
}

/** Short text for the dashboard: what the key of a rule is read from. */
export function describeDedupKey(rule: DedupRule): string {
  const { key } = rule;
  if (key === "auto") return "provider delivery id";
  if (key === "body") return "exact body";
  if ("header" in key) return `header ${key.header}`;
  return `JSON field ${key.json}`;
}

/**
 * The request's key under the rule: a SHA-256 hex (fixed size to store and index) of the
 * key's kind and material, or null when the request has none.
 */
export function dedupKey(rule: DedupRule, request: DedupRequest): string | null {
  const { key } = rule;
  if (key === "body") return bodyDigest(request.body);
  if (key === "auto") {
    const id = providerDeliveryId(request);
    return id ? digest(["auto", id.provider, id.value]) : null;
  }
  if ("header" in key) {
    const value = headerText(request.headers, key.header);
    return value === undefined ? null : digest(["header", key.header.toLowerCase(), value]);
  }
  const value = jsonScalarAt(request.body, key.json);
  return value === undefined ? null : digest(["json", key.json, value]);
}

// The material as a JSON array: unambiguous (no value can end one field and begin the
// next) and it tells "42" from 42. It opens with "[", the body's material with "body:",
// so no header or JSON key can hash the same bytes as a body.
function digest(material: Array<string | number | boolean>): string {
  return createHash("sha256").update(JSON.stringify(material)).digest("hex");
}

function bodyDigest(body: Uint8Array): string {
  return createHash("sha256").update("body:").update(body).digest("hex");
}

/**
 * A header's value, matched case-insensitively; repeated fields are joined as HTTP joins
 * them (", "), so a key depends on every value sent. Empty (or blank) values count as missing.
 */
function headerText(headers: ReadonlyArray<[string, string]>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [field, value] of headers) {
    if (field.toLowerCase() !== wanted) continue;
    const trimmed = value.trim();
    if (trimmed !== "") values.push(trimmed);
  }
  return values.length > 0 ? values.join(", ") : undefined;
}

interface ProviderId {
  provider: string;
  value: string;
}

type IdReader = (request: DedupRequest) => string | undefined;

const fromHeader =
  (name: string): IdReader =>
  (request) =>
    headerText(request.headers, name);

const fromHeaderOf =
  (source: string, name: string): IdReader =>
  (request) =>
    request.source === source ? headerText(request.headers, name) : undefined;

const fromBodyOf =
  (source: string, field: string, prefix = ""): IdReader =>
  (request) => {
    if (request.source !== source) return undefined;
    const value = jsonScalarAt(request.body, field);
    return typeof value === "string" && value.startsWith(prefix) ? value : undefined;
  };

/** The table above, in order of precedence. */
const PROVIDER_IDS: ReadonlyArray<[provider: string, read: IdReader]> = [
  ["standard-webhooks", fromHeader("webhook-id")],
  ["standard-webhooks", fromHeader("svix-id")],
  ["github", fromHeader("x-github-delivery")],
  ["shopify", fromHeader("x-shopify-webhook-id")],
  ["gitlab", fromHeaderOf("gitlab", "idempotency-key")],
  ["jira", fromHeader("x-atlassian-webhook-identifier")],
  ["linear", fromHeader("linear-delivery")],
  ["twilio", fromHeader("i-twilio-idempotency-token")],
  ["stripe", fromBodyOf("stripe", "id", "evt_")],
  ["slack", fromBodyOf("slack", "event_id")],
  ["paddle", fromBodyOf("paddle", "event_id", "evt_")],
];

function providerDeliveryId(request: DedupRequest): ProviderId | undefined {
  for (const [provider, read] of PROVIDER_IDS) {
    const value = read(request);
    if (value !== undefined) return { provider, value };
  }
  return undefined;
}

type Scalar = string | number | boolean;

/**
 * The scalar at a dotted path of a JSON body, or undefined when the body is not JSON, the
 * path leads nowhere, or the value is no usable key:
 * - null, objects, arrays and "" are no key;
 * - a number is one only as a safe integer: a fraction or an integer past 2^53 could be
 *   one double for several ids in the body, merging distinct deliveries.
 * On an array a segment must be an index (items.0.id); on an object any segment is a key.
 *
 * Cost: a path of one or two plain segments (id, data.id) is read with scanJsonFields, one
 * pass over the bytes that builds nothing else; a deeper path, or one through an array,
 * costs a JSON.parse of the whole body (about 15 ns a byte, 150 ms and several times the
 * size in memory for a 10 MiB body). The scan skips what the path does not reach, so a
 * body broken only there may still give a key.
 */
function jsonScalarAt(body: Uint8Array, path: string): Scalar | undefined {
  const segments = path.split(".");
  const scanned = scannable(segments) ? scanScalar(body, segments) : RE_READ;
  return usableScalar(scanned === RE_READ ? valueAt(parseBody(body), segments) : scanned);
}

/** Said by the scan when its answer may differ from JSON.parse's: read the whole body. */
const RE_READ = Symbol("re-read");

// A key of the body longer than 256 bytes is not decoded by the scan (json-fields.ts), and a
// key can be spelt with \uXXXX escapes, six bytes a character: 42 characters stay below.
const MAX_SCANNED_SEGMENT_LENGTH = 42;
// The scan keeps a string value's first 1024 bytes; one of fewer than 170 characters is whole
// whatever its escapes (six bytes a character at most), so a longer one is re-read.
const MAX_SCANNED_STRING_LENGTH = 160;

function scannable(segments: readonly string[]): boolean {
  return (
    segments.length <= 2 &&
    // Digits may index an array, which the scan keeps only as a placeholder; "__proto__"
    // would not become a field of the scan's plain objects.
    segments.every((segment) => segment.length <= MAX_SCANNED_SEGMENT_LENGTH && !/^[0-9]+$/.test(segment) && segment !== "__proto__")
  );
}

/** Key sets by path: scanJsonFields prepares each set once (it caches by identity). */
const scanKeySets = new Map<string, ReadonlySet<string>>();
const MAX_SCAN_KEY_SETS = 1024;

function scanScalar(body: Uint8Array, segments: readonly string[]): unknown {
  // The scan reads the first element of a root array as the record; the path does not.
  if (!opensObject(body)) return undefined;
  const id = segments.join(".");
  let keys = scanKeySets.get(id);
  if (!keys) {
    if (scanKeySets.size >= MAX_SCAN_KEY_SETS) scanKeySets.clear();
    scanKeySets.set(id, (keys = new Set(segments)));
  }
  const value = valueAt(scanJsonFields(body, keys), segments);
  // A long string may have been cut; U+FFFD may stand for bytes that are not UTF-8.
  if (typeof value === "string" && (value.length > MAX_SCANNED_STRING_LENGTH || value.includes("\uFFFD"))) return RE_READ;
  return value;
}

/** Whether the first character of the body (after a byte order mark and spaces) is "{". */
function opensObject(body: Uint8Array): boolean {
  let at = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  while (body[at] === 0x20 || body[at] === 0x0a || body[at] === 0x0d || body[at] === 0x09) at += 1;
  return body[at] === 0x7b;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function parseBody(body: Uint8Array): unknown {
  try {
    return JSON.parse(strictUtf8.decode(body)) as unknown;
  } catch {
    return undefined;
  }
}

function valueAt(document: unknown, segments: readonly string[]): unknown {
  let at = document;
  for (const segment of segments) {
    if (Array.isArray(at)) {
      if (!ARRAY_INDEX.test(segment)) return undefined;
      at = at[Number(segment)];
    } else if (at !== null && typeof at === "object") {
      if (!Object.hasOwn(at, segment)) return undefined;
      at = (at as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return at;
}

function usableScalar(value: unknown): Scalar | undefined {
  if (typeof value === "string") return value === "" ? undefined : value;
  if (typeof value === "number") return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === "boolean") return value;
  return undefined;
}
