import { z } from "zod";
import { exampleOf } from "./openapi-example.js";
import { ROUTES, type Route } from "./routes.js";
import { ErrorResponse } from "./schemas.js";

export const API_VERSION = "v1";

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Invalid request (validation issues in error.details)",
  401: "Missing, malformed, unknown or revoked API key",
  403: "The key's role does not allow this operation (error.message names the role it needs)",
  404: "No such resource (also for another team's ids)",
  405: "Method not allowed on this path",
  413: "Request body too large",
  409: "The operation does not apply to the resource in its current state (e.g. retrying a delivered event), with the reason",
  415: "The body is not application/json",
  422: "The target cannot be used (e.g. a refused address, or a retry of an event without a destination), with the reason",
  429: "Too many requests for this key (see Retry-After), or too many open event streams",
  503: "The server is stopping: it opens no new event streams (reconnect after Retry-After)",
};

const RETRY_AFTER = { description: "Seconds to wait before trying again", required: true, schema: { type: "integer", minimum: 1 } };

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

/** The success answer: its description, and for one with a body its schema and an example of it. */
function successResponse(route: Route): Record<string, unknown> {
  const { description, schema, contentType } = route.success;
  if (!schema) return { description };
  const output = jsonSchema(schema, "output");
  return { description, content: { [contentType ?? (route.streams ? "text/event-stream" : "application/json")]: { schema: output, example: exampleOf(output) } } };
}

function operation(route: Route): Record<string, unknown> {
  const error = { content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
  const responses: Record<string, unknown> = { [route.success.status]: successResponse(route) };
  for (const status of new Set([...route.errors, 401, 429])) responses[status] = { description: ERROR_DESCRIPTIONS[status], ...error };
  // A paced operation's 429 says why, and always carries how long to wait.
  if (route.paced) responses[429] = { description: `${ERROR_DESCRIPTIONS[429]}; ${route.paced}`, headers: { "Retry-After": RETRY_AFTER }, ...error };
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
        "Preview. Events, replays and endpoints of the API key's user. Authenticate with `Authorization: Bearer pk_live_…` (keys are made in Settings → API keys or with `rehook apikey create`). Errors are `{\"error\": {\"code\", \"message\", \"details\"?}}`.",
    },
    servers: [{ url: `${baseUrl}/api/${API_VERSION}` }],
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "A pk_live_ API key" } },
      schemas: { Error: jsonSchema(ErrorResponse, "output") },
    },
    paths,
  };
}
