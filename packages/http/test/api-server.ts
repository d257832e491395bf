import { randomBytes, randomUUID } from "node:crypto";
import { createServer, request, type IncomingMessage, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { expect } from "vitest";
import { silentLogger } from "@rehook/core";
import {
  ALL_CONTRACTS,
  actorFor,
  captureRequest,
  createApiKey,
  createUser,
  type Actor,
  type Role,
  type Services,
  type UserView,
} from "@rehook/services";
import { test as base } from "@rehook/vitest-config/service-fixtures";
import { createPublicApi, type PublicApiOptions } from "../src/api-v1/handler.js";
import { openApiDocument, RESPONSE_HEADERS } from "../src/api-v1/openapi.js";
import { ROUTES, type Route } from "../src/api-v1/routes.js";
import { defaultBodies } from "./default-bodies.js";

// The /api/v1 handler on a loopback server of its own, over the fixture's services: every
// answer is checked against the OpenAPI document, and what was checked is recorded so that
// each file can prove it exercised every answer its routes declare.

export const BASE_URL = "http://rehook.test";
export const PASSWORD = "a long enough password";
/** An id no row has. */
export const MISSING_ID = "0192f0e0-0000-7000-8000-000000000000";

interface HeaderObject {
  required?: boolean;
  schema: object;
}
interface Response {
  content?: Record<string, { schema: object; example?: unknown }>;
  headers?: Record<string, HeaderObject | { $ref: string }>;
}
interface Operation {
  responses: Record<string, Response | { $ref: string }>;
}
export interface ApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object>; headers: Record<string, HeaderObject>; responses: Record<string, Response> };
}

export const document = openApiDocument(BASE_URL) as unknown as ApiDocument;

/** A component the document refers to ("#/components/responses/TooManyRequests"), or the object itself. */
function resolved<T>(value: T | { $ref: string }): T {
  if (typeof value !== "object" || value === null || !("$ref" in value)) return value as T;
  const [, , group, name] = value.$ref.split("/") as [string, string, "headers" | "responses", string];
  return document.components[group][name] as T;
}

/** A declared response (following its $ref). */
export function responseOf(route: Route, status: string): Response | undefined {
  const response = document.paths[route.path]![route.method.toLowerCase()]!.responses[status];
  return response && resolved(response);
}

/**
 * Headers that mean something to a client: an answer that sends one must declare it. The
 * document's own (Rehook-Api-Version, Retry-After, Allow, Content-Disposition,
 * WWW-Authenticate) and the others an API could send, so a new one cannot go undeclared.
 */
export const MEANINGFUL_HEADERS = new Set([
  ...Object.keys(RESPONSE_HEADERS).map((name) => name.toLowerCase()),
  "location",
  "link",
  "etag",
  "last-modified",
  "content-range",
  "accept-ranges",
  "deprecation",
  "sunset",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "ratelimit",
  "ratelimit-policy",
]);

/** Fails unless the answer's meaningful headers are the response's declared ones, each required one sent, each value of its schema. */
export function expectDeclaredHeaders(response: Response, headers: Headers, what: string): void {
  const declared = new Map(Object.entries(response.headers ?? {}).map(([name, header]) => [name.toLowerCase(), resolved(header)]));
  for (const [name, value] of headers) {
    if (!MEANINGFUL_HEADERS.has(name)) continue;
    const header = declared.get(name);
    expect(header, `${what} sent ${name}, which its response in the document does not declare`).toBeDefined();
    expectValid(header!.schema, value, `${what} header ${name}`);
  }
  for (const [name, header] of declared) if (header.required) expect(headers.get(name), `${what} did not send ${name}, which the document requires`).not.toBeNull();
}

/** Which test file exercises each route's own answers (its success and route-specific errors). */
export const ROUTE_FILES: Record<string, "endpoints" | "destinations" | "events" | "replays" | "team" | "audit" | "alerts"> = {
  listEvents: "events",
  exportEvents: "events",
  getEvent: "events",
  deleteEvent: "events",
  getEventBody: "events",
  replayEvent: "replays",
  resolveDelivery: "replays",
  retryEvent: "replays",
  recordLocalReplay: "replays",
  streamEndpointEvents: "endpoints",
  listEndpoints: "endpoints",
  createEndpoint: "endpoints",
  getEndpoint: "endpoints",
  updateEndpoint: "endpoints",
  resumeEndpoint: "replays",
  retryFailedEvents: "replays",
  deleteEndpoint: "endpoints",
  listDestinations: "destinations",
  createDestination: "destinations",
  updateDestination: "destinations",
  resumeDestination: "destinations",
  deleteDestination: "destinations",
  getTeam: "team",
  listAuditLog: "audit",
  listAlertRules: "alerts",
  createAlertRule: "alerts",
  updateAlertRule: "alerts",
  deleteAlertRule: "alerts",
  testAlertRule: "alerts",
};

/**
 * Answers the handler gives before a route runs (key, rate limit, body media type and size):
 * api-v1-openapi.test.ts exercises them for every route, the resource files the rest.
 */
export const HANDLER_STATUSES = ["401", "413", "415", "429"];

/**
 * The role refusal, which the document declares on every route: api-v1-openapi.test.ts sends
 * a viewer key to every route that needs more. A route a viewer may use never answers it.
 */
export const ROLE_STATUS = "403";

const contractRoles = new Map<string, Role>();
for (const contract of ALL_CONTRACTS) if (contract.rest) contractRoles.set(contract.rest.operationId, contract.role);

/** A body each route that reads one takes: a refusal of it is then the role's or the id's, not the body's. */
export const ACCEPTED_BODIES: Record<string, unknown> = {
  createEndpoint: { name: "accepted" },
  updateEndpoint: { name: "accepted" },
  createDestination: { url: "http://127.0.0.1:9/accepted" },
  updateDestination: { name: "accepted" },
  replayEvent: { destination_url: "http://127.0.0.1:9/accepted" },
  resolveDelivery: { note: "accepted" },
  recordLocalReplay: { status: 200, latency_ms: 4 },
  createAlertRule: { name: "accepted", trigger: "delivery_failed", channel: "webhook", target: "http://127.0.0.1:9/accepted" },
  updateAlertRule: { enabled: false },
};

/** The role a route needs: its contract's; the routes that stream a read (stream, body, export) are a viewer's. */
export function roleOf(route: Route): Role {
  return contractRoles.get(route.operationId) ?? "viewer";
}

const ajv = new Ajv2020({ strict: false, validateFormats: false });
const validators = new Map<object, ValidateFunction>();
function validatorOf(schema: object): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    // The document's own components, so that its $refs resolve.
    validate = ajv.compile({ ...schema, components: document.components });
    validators.set(schema, validate);
  }
  return validate;
}

const patterns = ROUTES.map((route) => ({ route, pattern: new RegExp(`^${route.path.replace(/\{\w+\}/g, "[^/]+")}$`) }));

/** The route a method and path (under /api/v1, query allowed) are for, if any. */
export function routeOf(method: string, path: string): Route | undefined {
  const bare = path.split("?")[0]!;
  return patterns.find(({ route, pattern }) => route.method === method && pattern.test(bare))?.route;
}

/** Checks a value against a schema of the document, failing with ajv's errors. */
export function expectValid(schema: object, value: unknown, what: string): void {
  const validate = validatorOf(schema);
  expect(validate(value), `${what}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  /** The body as it came, and as UTF-8 text. */
  bytes: Buffer;
  text: string;
  // Answers are JSON of many shapes; tests read them as the document describes.
  json: any;
}

export interface CallOptions {
  /** The API key; null sends no Authorization header. */
  key: string | null;
  /** A value is sent as JSON; a string as it is. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ApiServer {
  url: string;
  /** "METHOD /path/{template} STATUS" of each answer checked against the document. */
  exercised: Set<string>;
  call(method: string, path: string, options: CallOptions): Promise<ApiAnswer>;
  /** Opens GET /endpoints/{id}/stream; each message's data is checked against the document. */
  stream(path: string, key: string, headers?: Record<string, string>): Promise<EventStream>;
  /** Shutdown begins: the open streams end, new ones are refused. */
  closeStreams(): void;
  close(): Promise<void>;
}

export interface StreamMessage {
  id?: string;
  event?: string;
  data: any;
}

export interface EventStream {
  response: IncomingMessage;
  next(): Promise<StreamMessage>;
  close(): void;
}

/** Serves a request listener on 127.0.0.1 at a free port; a handler's throw is a 500, as the server's listener has it. */
export async function listen(handle: (req: Parameters<RequestListener>[0], res: Parameters<RequestListener>[1]) => Promise<void>) {
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The API mounted under /api/v1 as the server mounts it; `record` collects what was checked (a file's servers may share one). */
export async function startApi(
  services: Services,
  options: Partial<Omit<PublicApiOptions, "services">> & { record?: Set<string> } = {},
): Promise<ApiServer> {
  const { record, ...overrides } = options;
  const api = createPublicApi({ services, baseUrl: BASE_URL, logger: silentLogger, enabled: true, requestsPerMinute: 100_000, bodies: defaultBodies(), ...overrides });
  const exercised = record ?? new Set<string>();
  const server = await listen(async (req, res) => {
    if (!req.url?.startsWith("/api/v1")) {
      res.writeHead(404).end();
      return;
    }
    // As the server's request listener does: every answer carries the request's id (the caller's, when it sends one).
    const requestId = req.headers["x-request-id"];
    res.setHeader("x-request-id", typeof requestId === "string" ? requestId : randomUUID());
    await api.handle(req, res);
  });

  /** The document's answer for this request's route and status (undefined when the path is no route's). */
  function declared(method: string, path: string, status: number) {
    const route = routeOf(method, path);
    if (!route) return undefined;
    const response = responseOf(route, String(status));
    expect(response, `${method} ${path} answered ${status}, which the document does not declare`).toBeDefined();
    return { route, response: response! };
  }

  /** A method that a route's path does not take: the document's 405 (its description says every path answers it). */
  function methodNotAllowed(method: string, path: string, status: number, headers: Headers): void {
    const bare = path.split("?")[0]!;
    if (!patterns.some(({ pattern }) => pattern.test(bare))) return;
    expect(status, `${method} ${path}`).toBe(405);
    expectDeclaredHeaders(document.components.responses.MethodNotAllowed!, headers, `${method} ${path} 405`);
  }

  return {
    url: server.url,
    exercised,
    async call(method, path, options) {
      const headers: Record<string, string> = { ...(options.key === null ? {} : { authorization: `Bearer ${options.key}` }), ...options.headers };
      if (options.body !== undefined && !headers["content-type"]) headers["content-type"] = "application/json";
      const response = await fetch(`${server.url}/api/v1${path}`, {
        method,
        headers,
        ...(options.body !== undefined ? { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) } : {}),
      });
      const bytes = Buffer.from(await response.arrayBuffer());
      const text = bytes.toString("utf8");
      const mediaType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
      const json = mediaType === "application/json" && text ? JSON.parse(text) : undefined;
      const found = declared(method, path, response.status);
      if (!found) methodNotAllowed(method, path, response.status, response.headers);
      if (found) {
        expect(response.headers.get("rehook-api-version"), `${method} ${path}`).toBe("v1");
        const content = found.response.content;
        const what = `${method} ${path} ${response.status}`;
        expectDeclaredHeaders(found.response, response.headers, what);
        if (!content) expect(text, `${what} has no body in the document`).toBe("");
        else {
          const entry = content[mediaType];
          expect(entry, `${what} answered ${mediaType}, which the document does not name`).toBeDefined();
          if (mediaType === "application/json") expectValid(entry!.schema, json, what);
          else if (mediaType === "application/x-ndjson") {
            expectValid(entry!.schema, text, what);
            for (const line of text.split("\n").filter(Boolean)) JSON.parse(line);
          } else expectValid(entry!.schema, text, what);
        }
        exercised.add(`${method} ${found.route.path} ${response.status}`);
      }
      return { status: response.status, headers: response.headers, bytes, text, json };
    },
    async stream(path, key, extra = {}) {
      const response = await new Promise<IncomingMessage>((resolve, reject) =>
        request(`${server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${key}`, ...extra } }, resolve)
          .on("error", reject)
          .end(),
      );
      const found = declared("GET", path, response.statusCode!);
      expect(response.statusCode, `GET ${path}`).toBe(200);
      expect(response.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
      expect(response.headers["rehook-api-version"]).toBe("v1");
      const sent = new Headers();
      for (const [name, value] of Object.entries(response.headers)) if (typeof value === "string") sent.set(name, value);
      expectDeclaredHeaders(found!.response, sent, `GET ${path} 200`);
      const schema = found!.response.content!["text/event-stream"]!.schema;
      exercised.add(`GET ${found!.route.path} 200`);
      response.setEncoding("utf8");
      const chunks = response[Symbol.asyncIterator]() as AsyncIterator<string>;
      let buffered = "";
      return {
        response,
        async next() {
          for (;;) {
            const end = buffered.indexOf("\n\n");
            if (end !== -1) {
              const block = buffered.slice(0, end);
              buffered = buffered.slice(end + 2);
              const fields = new Map<string, string>();
              for (const line of block.split("\n")) {
                const colon = line.indexOf(":");
                if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
              }
              // retry: and ping comments carry no data.
              if (!fields.has("data")) continue;
              const data = JSON.parse(fields.get("data")!);
              expectValid(schema, data, `GET ${path} message`);
              return { id: fields.get("id"), event: fields.get("event"), data };
            }
            const chunk = await chunks.next();
            if (chunk.done) throw new Error(`GET ${path}: the stream ended`);
            buffered += chunk.value;
          }
        },
        close: () => response.destroy(),
      };
    },
    closeStreams: () => api.closeStreams(),
    close: server.close,
  };
}

/** Each answer the document declares for the file's routes, other than the handler's own, that no call exercised. */
export function unexercised(api: ApiServer, file: (typeof ROUTE_FILES)[string]): string[] {
  const missing: string[] = [];
  for (const route of ROUTES.filter((r) => ROUTE_FILES[r.operationId] === file)) {
    for (const status of Object.keys(document.paths[route.path]![route.method.toLowerCase()]!.responses)) {
      if (HANDLER_STATUSES.includes(status) || status === ROLE_STATUS) continue;
      // No room in the body budget: the handler's, on any route with a body (body-budget tests reach it).
      if (status === "503" && route.body && !route.errors.includes(503)) continue;
      const key = `${route.method} ${route.path} ${status}`;
      if (!api.exercised.has(key)) missing.push(key);
    }
  }
  return missing;
}

/**
 * A user of the test's own with an admin API key of their personal team: for scoping stories
 * (their ids must answer as if missing, whatever the key may do in its own team).
 */
export interface Person {
  user: UserView;
  /** Them as the owner of their personal team. */
  actor: Actor;
  key: string;
}

export async function newPerson(services: Services): Promise<Person> {
  const user = await createUser(services, { email: `api-${randomBytes(6).toString("hex")}@example.com`, password: PASSWORD });
  const { actor } = await actorFor(services, { userId: user.id });
  const { key } = await createApiKey(services, actor, { name: "tests", role: "admin" });
  return { user, actor, key };
}

/** A key of the fixture user's team with another role than the fixture key's developer. */
export async function keyWithRole(services: Services, actor: Actor, role: Role): Promise<string> {
  return (await createApiKey(services, actor, { name: `${role} key`, role })).key;
}

export const test = base.extend<{ api: ApiServer; stranger: Person; adminKey: string }>({
  api: [
    async ({ services }, use) => {
      const api = await startApi(services);
      try {
        await use(api);
      } finally {
        await api.close();
      }
    },
    { scope: "file" },
  ],
  stranger: async ({ services }, use) => {
    await use(await newPerson(services));
  },
  /** An admin key of the fixture user's team (deleting an endpoint needs an admin). */
  adminKey: async ({ services, user }, use) => {
    await use(await keyWithRole(services, user.actor, "admin"));
  },
});

/** Captures a request to the endpoint as the capture handler does; answers the stored event's id. */
export async function capture(
  services: Services,
  slug: string,
  body: string | Buffer,
  options: { contentType?: string; headers?: Array<[string, string]>; subPath?: string; query?: string } = {},
): Promise<string> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const outcome = await captureRequest(services, {
    slug,
    method: "POST",
    subPath: options.subPath ?? "",
    query: options.query ?? "",
    headers: options.headers ?? [["Content-Type", options.contentType ?? "application/json"]],
    body: bytes,
    clientIp: "192.0.2.1",
  });
  if (outcome.kind !== "accepted") throw new Error(`capture was not accepted: ${outcome.kind}`);
  return outcome.eventId;
}
