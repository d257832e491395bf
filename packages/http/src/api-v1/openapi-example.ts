// An example value for a JSON schema of the OpenAPI document, so that every answer the
// reference documents shows what it looks like. Derived from the schema (the presenters'
// wire shapes in schemas.ts): a field added there shows up in the examples without an edit
// here. Deterministic: the document is the same on every start.

import type { ExportedEvent } from "@rehook/core";
import { harEntry, harStart, HAR_END } from "../export/har.js";
import { ndjsonLine } from "../export/ndjson.js";

type Schema = Record<string, unknown>;

const EXAMPLE_ID = "0192f0e0-7c3a-7d4e-8a1b-4b6f1a2c9d11";
const EXAMPLE_TIME = "2026-11-24T09:30:00.000Z";
const EXAMPLE_ENDPOINT_ID = "0192e1aa-1f00-7b2c-9d3e-5a6b7c8d9e0f";
const EXAMPLE_SLUG = "stripe-production-k3f9";

/**
 * Values for fields whose name says more than their type ("stripe" reads better than
 * "string"), the first that fits the field's schema: `status` is an HTTP status where the
 * schema is an integer and "delivered" where it is an event's or an attempt's status.
 */
const BY_NAME: Record<string, unknown[]> = {
  id: [EXAMPLE_ID],
  endpoint_id: [EXAMPLE_ENDPOINT_ID],
  source: ["stripe"],
  event_type: ["invoice.paid"],
  method: ["POST"],
  path: ["/billing"],
  query: [""],
  headers: [
    [
      ["content-type", "application/json"],
      ["user-agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)"],
    ],
  ],
  payload: [{ id: "evt_1QbX4k", type: "invoice.paid", data: { object: { amount_paid: 2000, currency: "usd" } } }],
  size_bytes: [94],
  body: ['{"received":true}'],
  body_base64: ["eyJ0eXBlIjoiaW52b2ljZS5wYWlkIn0="],
  latency_ms: [142],
  status: [200, "delivered"],
  // A delivered, validly signed event: no reason to give.
  signature_reason: [null],
  response_status: [200],
  error: [null],
  name: ["Stripe production"],
  slug: [EXAMPLE_SLUG],
  webhook_url: [`https://rehook.example.com/api/webhook/${EXAMPLE_SLUG}`],
  destination_url: ["https://example.com/hooks"],
  success_rate: [0.98],
  max_attempts: [5],
  initial_delay_ms: [1000],
  max_delay_ms: [60_000],
  retention_days: [30],
  kept_for_days: [30],
  pause_after_failures: [5],
  paused_reason: [null],
  paused_at: [null],
  next_attempt_at: [null],
  // A delivered event's deliveries were not filtered.
  filter_reason: [null],
  handshake: [null],
  last4: ["9d2f"],
  total: [1],
  limit: [20],
  offset: [0],
  count: [3],
  next_cursor: [null],
  message: ["queued: the next attempt starts within a few seconds"],
};

const isSchema = (value: unknown): value is Schema => typeof value === "object" && value !== null && !Array.isArray(value);

/** The schema's variants: anyOf/oneOf, or the schema itself. */
function variantsOf(schema: Schema): Schema[] {
  const list = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null;
  return list ? list.filter(isSchema) : [schema];
}

function typesOf(schema: Schema): string[] {
  return Array.isArray(schema.type) ? schema.type.map(String) : typeof schema.type === "string" ? [schema.type] : [];
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Whether a named value may stand for this schema: its JSON type (and enum, when there is one) agree. */
function fits(value: unknown, schema: Schema): boolean {
  return variantsOf(schema).some((variant) => {
    if (Array.isArray(variant.enum) && !variant.enum.includes(value)) return false;
    const types = typesOf(variant);
    if (types.length === 0) return !("anyOf" in variant || "oneOf" in variant);
    const type = jsonTypeOf(value);
    return types.includes(type) || (type === "integer" && types.includes("number"));
  });
}

function numberExample(schema: Schema): number {
  const min = typeof schema.minimum === "number" && schema.minimum > Number.MIN_SAFE_INTEGER ? schema.minimum : null;
  return min ?? 0;
}

function stringExample(schema: Schema): string {
  if (schema.format === "uuid") return EXAMPLE_ID;
  if (schema.format === "date-time") return EXAMPLE_TIME;
  if (schema.format === "uri") return "https://example.com/hooks";
  return "string";
}

/** An example value for `schema`; `name` is the property it describes, when it is one. */
export function exampleOf(schema: Schema, name?: string): unknown {
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ("const" in schema) return schema.const;
  if (schema.default !== undefined) return schema.default;
  const named = name !== undefined && Object.hasOwn(BY_NAME, name) ? BY_NAME[name]!.find((value) => fits(value, schema)) : undefined;
  if (named !== undefined) return named;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const variants = variantsOf(schema);
  if (variants[0] !== schema) {
    // A nullable field shows its value: null says less about the shape.
    const shown = variants.find((variant) => !typesOf(variant).includes("null")) ?? variants[0];
    return shown ? exampleOf(shown, name) : null;
  }
  const type = typesOf(schema).find((candidate) => candidate !== "null") ?? typesOf(schema)[0];
  switch (type) {
    case "object": {
      // Only the fields every answer has: an optional one would suggest it always comes.
      const properties = Object.entries(isSchema(schema.properties) ? schema.properties : {});
      const required = new Set(Array.isArray(schema.required) ? schema.required : []);
      return Object.fromEntries(properties.filter(([key]) => required.has(key)).map(([key, property]) => [key, isSchema(property) ? exampleOf(property, key) : null]));
    }
    case "array":
      if (Array.isArray(schema.prefixItems)) return schema.prefixItems.map((item) => (isSchema(item) ? exampleOf(item) : null));
      return isSchema(schema.items) ? [exampleOf(schema.items)] : [];
    case "string":
      return stringExample(schema);
    case "integer":
    case "number":
      return numberExample(schema);
    case "boolean":
      return false;
    default:
      // No type (any JSON value) or null.
      return null;
  }
}

// Answers that are not JSON: their examples are made by the code that writes them.

const EXAMPLE_BODY = '{"id":"evt_1QbX4k","type":"invoice.paid","data":{"object":{"amount_paid":2000,"currency":"usd"}}}';

/** A body as GET /events/{id}/body serves it: the bytes as captured. */
export const EVENT_BODY_EXAMPLE = EXAMPLE_BODY;

const EXPORTED_EXAMPLE: ExportedEvent = {
  id: EXAMPLE_ID,
  endpointId: EXAMPLE_ENDPOINT_ID,
  endpointSlug: EXAMPLE_SLUG,
  method: "POST",
  path: "",
  query: "",
  headers: [["content-type", "application/json"]],
  body: new TextEncoder().encode(EXAMPLE_BODY),
  contentType: "application/json",
  source: "stripe",
  eventType: "invoice.paid",
  status: "delivered",
  signature: null,
  receivedAt: new Date(EXAMPLE_TIME),
  response: { status: 200, headers: [["content-type", "application/json"]], body: new TextEncoder().encode('{"ok":true}'), truncated: false },
  latencyMs: 142,
  error: null,
};

/** One line of an NDJSON export, written by the exporter itself. */
export const EVENT_EXPORT_EXAMPLE = ndjsonLine(EXPORTED_EXAMPLE);

/** A HAR export of the same event, written by the exporter itself. */
export const HAR_EXPORT_EXAMPLE: unknown = JSON.parse(`${harStart("1")}${JSON.stringify(harEntry(EXPORTED_EXAMPLE, "https://rehook.example.com"))}${HAR_END}`);
