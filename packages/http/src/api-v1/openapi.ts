import { z } from "zod";
import { exampleOf } from "./openapi-example.js";
import { ROUTES, type Route } from "./routes.js";
import { ErrorResponse } from "./schemas.js";

export const API_VERSION = "v1";

/**
 * Every header an /api/v1 answer carries that a client acts on, as OpenAPI header objects
 * (components.headers). A response lists the ones it sends; the API test harness fails on an
 * answer that sends one of these (or another header with a meaning, see api-server.ts) that
 * its response does not declare, or that leaves out one declared as required.
 */
export const RESPONSE_HEADERS = {
  "Rehook-Api-Version": { description: "The API version that answered", required: true, schema: { type: "string", const: API_VERSION } },
  "Retry-After": { description: "Seconds to wait before sending the request again", required: true, schema: { type: "string", pattern: "^[0-9]+$" } },
  Allow: { description: "The methods this path takes, e.g. `GET, POST`", required: true, schema: { type: "string" } },
  "Content-Disposition": { description: "`attachment` with the file name to save the answer under", required: true, schema: { type: "string" } },
  "WWW-Authenticate": { description: "`Bearer`: how to authenticate", required: true, schema: { type: "string" } },
} as const;
export type ResponseHeader = keyof typeof RESPONSE_HEADERS;

interface ErrorAnswer {
  /** Its name under components.responses. */
  name: string;
  description: string;
  /** Headers it carries besides Rehook-Api-Version; `optional`: not on every answer of this status. */
  headers?: Array<ResponseHeader | { name: ResponseHeader; optional: string }>;
}

/**
 * Every error answer, once, as a component that each route's response refers to. A route that
 * adds a status (a 429 of its own, say) lists it in its `errors` and gets this response: its
 * headers come with it.
 */
export const ERROR_RESPONSES: Record<number, ErrorAnswer> = {
  400: { name: "BadRequest", description: "Invalid request (validation issues in error.details)" },
  401: { name: "Unauthorized", description: "Missing, malformed, unknown or revoked API key", headers: ["WWW-Authenticate"] },
  403: { name: "Forbidden", description: "The key's role does not allow this operation (error.message names the role it needs)" },
  404: { name: "NotFound", description: "No such resource (also for another team's ids)" },
  405: { name: "MethodNotAllowed", description: "Method not allowed on this path (any path of the API answers it to a method it does not take)", headers: ["Allow"] },
  409: { name: "Conflict", description: "The operation does not apply to the resource in its current state (e.g. retrying a delivered event), with the reason" },
  413: { name: "PayloadTooLarge", description: "Request body too large" },
  415: { name: "UnsupportedMediaType", description: "The body is not application/json" },
  422: { name: "Unprocessable", description: "The target cannot be used (e.g. a refused address, or a retry of an event without a destination), with the reason" },
  429: {
    name: "TooManyRequests",
    description: "Too many requests (the key's rate limit: wait Retry-After seconds), or too many open event streams",
    headers: [{ name: "Retry-After", optional: "Sent with the rate limit; not with a refusal of too many open event streams (one must close first)" }],
  },
  503: {
    name: "Unavailable",
    description: "Not now: the server is stopping (it opens no new event streams), or has no room for the request's body at the moment; send it again after Retry-After",
    headers: ["Retry-After"],
  },
};

/** The statuses the handler may answer on every route before the route runs. */
const EVERY_ROUTE = [401, 429];
/** …and on every route that reads a body (its media type, its size, room in the body budget). */
const BODY_ROUTE = [413, 415, 503];

/** The statuses besides success a route's document lists. */
export function errorStatuses(route: Route): number[] {
  return [...new Set([...route.errors, ...EVERY_ROUTE, ...(route.body ? BODY_ROUTE : [])])].sort((a, b) => a - b);
}

const headerRef = (name: ResponseHeader) => ({ $ref: `#/components/headers/${name}` });

/** A response's `headers`: Rehook-Api-Version and the ones named (an optional one inline, not required). */
function headersOf(names: ErrorAnswer["headers"] = []): Record<string, unknown> {
  const headers: Record<string, unknown> = { "Rehook-Api-Version": headerRef("Rehook-Api-Version") };
  for (const entry of names) {
    if (typeof entry === "string") headers[entry] = headerRef(entry);
    else headers[entry.name] = { ...RESPONSE_HEADERS[entry.name], required: false, description: `${RESPONSE_HEADERS[entry.name].description}. ${entry.optional}` };
  }
  return headers;
}

function errorComponents(): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const { name, description, headers } of Object.values(ERROR_RESPONSES)) {
    responses[name] = { description, headers: headersOf(headers), content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
  }
  return responses;
}

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

function parameters(route: Route): unknown[] {
  const list: unknown[] = [];
  for (const name of route.path.match(/\{(\w+)\}/g) ?? []) {
    list.push({ name: name.slice(1, -1), in: "path", required: true, schema: { type: "string", format: "uuid" } });
  }
  if (route.query) {
    const schema = jsonSchema(route.query, "input") as { properties: Record<string, unknown>; required?: string[] };
    for (const [name, property] of Object.entries(schema.properties)) {
      list.push({ name, in: "query", required: schema.required?.includes(name) ?? false, schema: property });
    }
  }
  return list;
}

/** The success answer: its description, headers, and for one with a body its schema and an example of it (per media type). */
function successResponse(route: Route): Record<string, unknown> {
  const { description, schema, contentType, alternatives = {}, headers } = route.success;
  const response = { description, headers: headersOf(headers) };
  if (!schema) return response;
  const output = jsonSchema(schema, "output");
  const content: Record<string, unknown> = { [contentType ?? (route.streams ? "text/event-stream" : "application/json")]: { schema: output, example: exampleOf(output) } };
  Object.assign(content, alternatives);
  return { ...response, content };
}

function operation(route: Route): Record<string, unknown> {
  const responses: Record<string, unknown> = { [route.success.status]: successResponse(route) };
  for (const status of errorStatuses(route)) {
    const known = ERROR_RESPONSES[status];
    if (!known) throw new Error(`${route.operationId} lists ${status}, which has no error response`);
    responses[status] = { $ref: `#/components/responses/${known.name}` };
  }
  // A paced operation's 429 says why, and always carries how long to wait.
  if (route.paced) {
    responses[429] = {
      description: `${ERROR_RESPONSES[429]!.description}; ${route.paced}`,
      headers: headersOf(["Retry-After"]),
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    parameters: parameters(route),
    ...(route.body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(route.body, "input") } } } } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, generated from the route table and its zod schemas. */
export function openApiDocument(baseUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);
  return {
    openapi: "3.1.0",
    info: {
      title: "Rehook API",
      version: API_VERSION,
      description:
        "Preview. Events, replays and endpoints of the API key's user. Authenticate with `Authorization: Bearer pk_live_…` (keys are made in Settings → API keys or with `rehook apikey create`). Errors are `{\"error\": {\"code\", \"message\", \"details\"?}}`. Every answer carries `Rehook-Api-Version`. A method a path does not take answers 405 with `Allow` (components.responses.MethodNotAllowed).",
    },
    servers: [{ url: `${baseUrl}/api/${API_VERSION}` }],
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "A pk_live_ API key" } },
      schemas: { Error: jsonSchema(ErrorResponse, "output") },
      headers: RESPONSE_HEADERS,
      responses: errorComponents(),
    },
    paths,
  };
}
