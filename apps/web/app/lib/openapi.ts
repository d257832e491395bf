/**
 * Reads the public API's OpenAPI document (GET /api/v1/openapi.json) into what the API
 * reference page shows: one entry per operation with its parameters, body, responses and a
 * curl example. Plain functions without Node modules; the page's loader calls them.
 */
import { shellQuote } from "@rehook/core/browser";

type Json = Record<string, unknown>;

const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;
/** zod writes "no upper bound" on integers as the largest safe integer. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

export interface FieldView {
  name: string;
  /** "path", "query" (parameters), "body" (request body properties) or "response" (an answer's fields). */
  in: string;
  required: boolean;
  /** "string (uuid)", "integer", "string | null". */
  type: string;
  enumValues: string[];
  defaultValue: string | null;
  /** "1–100", "≥ 0", "at least 1 character". */
  range: string | null;
  description: string | null;
}

export interface OperationView {
  /** An id for links to the operation's card. */
  anchor: string;
  method: string;
  path: string;
  operationId: string | null;
  summary: string;
  parameters: FieldView[];
  body: { required: boolean; fields: FieldView[] } | null;
  responses: ResponseView[];
  curl: string;
}

export interface ResponseView {
  status: string;
  description: string;
  /** The answer's media type, when it has a body. */
  contentType: string | null;
  /** The body's fields, nested ones as `meta.total` and `data[].id` (empty without a body or an object schema). */
  fields: FieldView[];
  /** An example body: JSON indented, text as it is; null when the document gives none. */
  example: string | null;
}

export interface ApiReference {
  title: string;
  version: string;
  baseUrl: string;
  operations: OperationView[];
}

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

/** A JSON value for the docs: strings as they are, the rest as JSON. */
function show(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The schema's type in words: "string (uuid)", "integer", "string | null", "any". */
function typeOf(schema: Json): string {
  const variants = Array.isArray(schema.anyOf) ? schema.anyOf.filter(isObject) : Array.isArray(schema.oneOf) ? schema.oneOf.filter(isObject) : null;
  if (variants && variants.length > 0) return [...new Set(variants.map(typeOf))].join(" | ");
  const types = Array.isArray(schema.type) ? schema.type.map(String) : typeof schema.type === "string" ? [schema.type] : [];
  if (types.length === 0) return "any";
  const format = text(schema.format);
  return types.map((type) => (type === "string" && format ? `${type} (${format})` : type === "array" && isObject(schema.items) ? `array of ${typeOf(schema.items)}` : type)).join(" | ");
}

function rangeOf(schema: Json): string | null {
  const min = typeof schema.minimum === "number" ? schema.minimum : null;
  const max = typeof schema.maximum === "number" && schema.maximum < UNBOUNDED ? schema.maximum : null;
  if (min !== null && max !== null) return `${min}–${max}`;
  if (min !== null && min > -UNBOUNDED) return `≥ ${min}`;
  if (max !== null) return `≤ ${max}`;
  if (typeof schema.minLength === "number" && schema.minLength > 0) return `at least ${schema.minLength} character${schema.minLength === 1 ? "" : "s"}`;
  return null;
}

function field(name: string, where: string, required: boolean, schema: Json, description: unknown): FieldView {
  return {
    name,
    in: where,
    required,
    type: typeOf(schema),
    enumValues: Array.isArray(schema.enum) ? schema.enum.map(show) : [],
    defaultValue: schema.default === undefined ? null : show(schema.default),
    range: rangeOf(schema),
    description: text(description) ?? text(schema.description),
  };
}

function parametersOf(operation: Json): FieldView[] {
  if (!Array.isArray(operation.parameters)) return [];
  return operation.parameters.filter(isObject).map((parameter) =>
    field(String(parameter.name ?? ""), String(parameter.in ?? ""), parameter.required === true, isObject(parameter.schema) ? parameter.schema : {}, parameter.description),
  );
}

function bodySchema(operation: Json): { required: boolean; schema: Json } | null {
  const body = operation.requestBody;
  if (!isObject(body) || !isObject(body.content)) return null;
  const json = body.content["application/json"];
  if (!isObject(json) || !isObject(json.schema)) return null;
  return { required: body.required === true, schema: json.schema };
}

function bodyFields(schema: Json): FieldView[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  return Object.entries(properties).map(([name, property]) => field(name, "body", required.includes(name), isObject(property) ? property : {}, undefined));
}

/** A plausible value for a field, for the examples. */
function sample(name: string, schema: Json): unknown {
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const variants = Array.isArray(schema.anyOf) ? schema.anyOf.filter(isObject) : [];
  const types = Array.isArray(schema.type) ? schema.type.map(String) : typeof schema.type === "string" ? [schema.type] : variants.map((v) => String(v.type));
  const type = types.find((candidate) => candidate !== "null") ?? "string";
  if (type === "integer" || type === "number") return typeof schema.minimum === "number" ? schema.minimum : 1;
  if (type === "boolean") return true;
  if (type === "array") return [];
  if (type === "object") return {};
  if (/url$/i.test(name)) return "https://example.com/hooks";
  if (name === "name") return "Stripe production";
  if (schema.format === "uuid") return "00000000-0000-0000-0000-000000000000";
  return "string";
}

/** A sample query for a GET: each query parameter with an enum or a default (the required ones always). */
function sampleQuery(operation: Json): string {
  if (!Array.isArray(operation.parameters)) return "";
  const pairs: string[] = [];
  for (const parameter of operation.parameters.filter(isObject)) {
    if (parameter.in !== "query") continue;
    const schema = isObject(parameter.schema) ? parameter.schema : {};
    const hasExample = schema.default !== undefined || Array.isArray(schema.enum);
    if (!hasExample && parameter.required !== true) continue;
    pairs.push(`${encodeURIComponent(String(parameter.name))}=${encodeURIComponent(show(sample(String(parameter.name), schema)))}`);
  }
  return pairs.length > 0 ? `?${pairs.join("&")}` : "";
}

/**
 * A copyable curl command for an operation. The key is read from $REHOOK_API_KEY (in double
 * quotes so the shell expands it); path parameters stay as {placeholders}.
 */
export function curlExample(baseUrl: string, method: string, path: string, operation: Json): string {
  const upper = method.toUpperCase();
  const url = `${baseUrl}${path}${upper === "GET" ? sampleQuery(operation) : ""}`;
  const lines = [`curl ${upper === "GET" ? "" : `-X ${upper} `}${shellQuote(url)}`, `-H "Authorization: Bearer $REHOOK_API_KEY"`];
  const body = bodySchema(operation);
  if (body) {
    const properties = isObject(body.schema.properties) ? body.schema.properties : {};
    // A body the document gives as its example (fields that go together only in some ways); else each field sampled.
    const given = Array.isArray(body.schema.examples) && isObject(body.schema.examples[0]) ? body.schema.examples[0] : null;
    // An empty object says nothing to the reader (the replay's optional `overrides`, say): left out.
    const example = given ?? Object.fromEntries(
      Object.entries(properties)
        .map(([name, property]) => [name, sample(name, isObject(property) ? property : {})] as const)
        .filter(([, value]) => !(isObject(value) && Object.keys(value).length === 0)),
    );
    lines.push(`-H 'Content-Type: application/json'`, `-d ${shellQuote(JSON.stringify(example))}`);
  }
  return lines.join(" \\\n  ");
}

/** The properties of an object schema, or of the object a nullable schema allows. */
function objectOf(schema: Json): Json | null {
  if (isObject(schema.properties)) return schema;
  const variants = Array.isArray(schema.anyOf) ? schema.anyOf.filter(isObject) : [];
  return variants.find((variant) => isObject(variant.properties)) ?? null;
}

/** Nesting shown in a response's fields: `data[].response.status` is deep enough for any answer. */
const MAX_FIELD_DEPTH = 3;

/** An answer's fields, each nested object's and array item's fields after it under a dotted name. */
function responseFields(schema: Json, prefix = "", depth = 0): FieldView[] {
  const object = objectOf(schema);
  if (!object || !isObject(object.properties)) return [];
  const required = Array.isArray(object.required) ? object.required.map(String) : [];
  const fields: FieldView[] = [];
  for (const [name, property] of Object.entries(object.properties)) {
    if (!isObject(property)) continue;
    const path = `${prefix}${name}`;
    fields.push(field(path, "response", required.includes(name), property, undefined));
    if (depth + 1 >= MAX_FIELD_DEPTH) continue;
    const item = isObject(property.items) ? property.items : null;
    fields.push(...(item ? responseFields(item, `${path}[].`, depth + 1) : responseFields(property, `${path}.`, depth + 1)));
  }
  return fields;
}

/** JSON indented by two spaces, except arrays of plain values, which stay on one line (a header's [name, value]). */
function indentedJson(value: unknown, indent = ""): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    if (value.every((item) => item === null || typeof item !== "object")) return `[${value.map((item) => JSON.stringify(item)).join(", ")}]`;
    return `[\n${value.map((item) => inner + indentedJson(item, inner)).join(",\n")}\n${indent}]`;
  }
  if (isObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return "{}";
    return `{\n${entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${indentedJson(item, inner)}`).join(",\n")}\n${indent}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function exampleText(value: unknown): string | null {
  if (value === undefined) return null;
  return typeof value === "string" ? value : indentedJson(value);
}

function responseOf(status: string, response: unknown): ResponseView {
  const description = isObject(response) ? (text(response.description) ?? "") : "";
  const content = isObject(response) && isObject(response.content) ? Object.entries(response.content).find(([, media]) => isObject(media)) : undefined;
  // The error answers share one shape, described once on the page (Basics → Errors).
  if (!content || !status.startsWith("2")) return { status, description, contentType: null, fields: [], example: null };
  const [contentType, media] = content as [string, Json];
  const schema = isObject(media.schema) ? media.schema : {};
  return { status, description, contentType, fields: responseFields(schema), example: exampleText(media.example) };
}

/** A response the operation refers to (`#/components/responses/…`: the error answers are declared once), or itself. */
function resolved(response: unknown, shared: Json): unknown {
  if (!isObject(response) || typeof response.$ref !== "string") return response;
  return shared[response.$ref.replace("#/components/responses/", "")];
}

function responsesOf(operation: Json, shared: Json): ResponseView[] {
  if (!isObject(operation.responses)) return [];
  return Object.entries(operation.responses)
    .map(([status, response]) => responseOf(status, resolved(response, shared)))
    .sort((a, b) => a.status.localeCompare(b.status));
}

/**
 * The operations of an OpenAPI document, in the document's order, with examples against
 * `baseUrl` (the origin the dashboard is open on, plus /api/v1). Throws on something that is
 * not such a document.
 */
export function readApiReference(document: unknown, baseUrl: string): ApiReference {
  if (!isObject(document) || !isObject(document.paths)) throw new Error("the answer is not an OpenAPI document (no paths)");
  const info = isObject(document.info) ? document.info : {};
  const shared = isObject(document.components) && isObject(document.components.responses) ? document.components.responses : {};
  const operations: OperationView[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const body = bodySchema(operation);
      operations.push({
        anchor: `op-${method}-${path.replace(/[{}]/g, "").replace(/[^a-zA-Z0-9]+/g, "-").replace(/^-|-$/g, "")}`,
        method: method.toUpperCase(),
        path,
        operationId: text(operation.operationId),
        summary: text(operation.summary) ?? text(operation.description) ?? "",
        parameters: parametersOf(operation),
        body: body ? { required: body.required, fields: bodyFields(body.schema) } : null,
        responses: responsesOf(operation, shared),
        curl: curlExample(baseUrl, method, path, operation),
      });
    }
  }
  return { title: text(info.title) ?? "API", version: text(info.version) ?? "", baseUrl, operations };
}
