import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect } from "vitest";
import { silentLogger } from "@rehook/core";
import { createApiKey, revokeApiKey } from "@rehook/services";
import { createPublicApi } from "../src/api-v1/handler.js";
import { ROUTES, type Route } from "../src/api-v1/routes.js";
import { ACCEPTED_BODIES, BASE_URL, document, expectValid, HANDLER_STATUSES, keyWithRole, listen, MISSING_ID, ROLE_STATUS, responseOf, roleOf, ROUTE_FILES, startApi, test } from "./api-server.js";
import { defaultBodies } from "./default-bodies.js";

// The document itself, and what the handler answers before any route runs, for every route.

const pathOf = (route: Route) => route.path.replace(/\{\w+\}/g, MISSING_ID);
const bodyRoutes = ROUTES.filter((route) => route.body);
const errorSchema = document.components.schemas.Error!;

describe("the OpenAPI document", () => {
  test("is a valid OpenAPI 3.1 document describing every route", async () => {
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(document.paths).sort()).toEqual([
      "/alert-rules",
      "/alert-rules/{id}",
      "/alert-rules/{id}/test",
      "/audit-log",
      "/endpoints",
      "/endpoints/{id}",
      "/endpoints/{id}/destinations",
      "/endpoints/{id}/destinations/{destination_id}",
      "/endpoints/{id}/destinations/{destination_id}/resume",
      "/endpoints/{id}/resume",
      "/endpoints/{id}/retry-failed",
      "/endpoints/{id}/stream",
      "/events",
      "/events/export",
      "/events/{id}",
      "/events/{id}/body",
      "/events/{id}/deliveries/{destination_id}/resolve",
      "/events/{id}/local-replays",
      "/events/{id}/replay",
      "/events/{id}/retry",
      "/team",
    ]);
    for (const route of ROUTES) expect(document.paths[route.path]![route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
  });

  test("gives every 2xx answer with a body a schema and an example that the schema accepts", () => {
    const withBody: string[] = [];
    for (const route of ROUTES) {
      for (const status of Object.keys(document.paths[route.path]![route.method.toLowerCase()]!.responses)) {
        if (!status.startsWith("2") || status === "204") continue;
        const what = `${route.method} ${route.path} ${status}`;
        const content = Object.entries(responseOf(route, status)!.content ?? {});
        expect(content.length, what).toBeGreaterThan(0);
        for (const [mediaType, media] of content) {
          expect(media.schema, `${what} ${mediaType}`).toBeDefined();
          expect(media.example, `${what} ${mediaType}`).toBeDefined();
          expectValid(media.schema, media.example, `${what} ${mediaType}`);
        }
        withBody.push(what);
      }
    }
    // Every route answers a body on success except the four deletes (event, endpoint, destination, alert rule).
    expect(withBody).toHaveLength(ROUTES.length - 4);
    const event = responseOf(ROUTES.find((r) => r.operationId === "getEvent")!, "200")!.content!["application/json"]!.example as Record<string, unknown>;
    expect(event).toMatchObject({ source: "stripe", event_type: "invoice.paid", payload_encoding: "json" });
    const exported = responseOf(ROUTES.find((r) => r.operationId === "exportEvents")!, "200")!.content!["application/x-ndjson"]!.example as string;
    expect(JSON.parse(exported)).toMatchObject({ event_type: "invoice.paid", body_base64: expect.any(String) });
  });

  test("gives every route a test file that exercises its answers", () => {
    // A new route fails here until it is given to a file, whose last test then requires its answers.
    expect(ROUTES.map((route) => route.operationId).sort()).toEqual(Object.keys(ROUTE_FILES).sort());
  });

  test("is served at GET /openapi.json (HEAD: the head alone) with the version header", async ({ api }) => {
    const got = await fetch(`${api.url}/api/v1/openapi.json`);
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(got.headers.get("rehook-api-version")).toBe("v1");
    expect(await got.json()).toEqual(document);
    const head = await fetch(`${api.url}/api/v1/openapi.json`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });
});

describe("API keys", () => {
  test("every route answers 401 with one body for a missing, malformed, unknown or revoked key", async ({ api, services, user, apiKey }) => {
    const { key: revoked, apiKey: revokedKey } = await createApiKey(services, user.actor, { name: "soon revoked" });
    expect((await api.call("GET", "/events", { key: revoked })).status).toBe(200);
    await revokeApiKey(services, user.actor, { keyId: revokedKey.id });
    const keys = [null, "not-a-key", `${apiKey.key.slice(0, -1)}${apiKey.key.endsWith("a") ? "b" : "a"}`, revoked];
    const first = await api.call("GET", "/events", { key: null });
    expect(first.json).toEqual({ error: { code: "unauthorized", message: "a valid API key is required: send Authorization: Bearer pk_live_…" } });
    expect(first.headers.get("www-authenticate")).toBe("Bearer");
    for (const route of ROUTES) {
      for (const key of keys) {
        const answer = await api.call(route.method, pathOf(route), { key });
        expect(answer.status, `${route.method} ${route.path} with ${key}`).toBe(401);
        expect(answer.json).toEqual(first.json);
      }
    }
  });

  test("notes when a key was last used, at most once a minute", async ({ api, apiKey, database }) => {
    const lastUsed = async () => (await database.query<{ last_used_at: Date | null }>("select last_used_at from api_keys where id = $1", [apiKey.id]))[0]!.last_used_at;
    expect(await lastUsed()).toBeNull();
    await api.call("GET", "/endpoints", { key: apiKey.key });
    const first = await lastUsed();
    expect(first).not.toBeNull();
    await api.call("GET", "/endpoints", { key: apiKey.key });
    expect(await lastUsed()).toEqual(first);
    await database.query("update api_keys set last_used_at = now() - interval '2 minutes' where id = $1", [apiKey.id]);
    await api.call("GET", "/endpoints", { key: apiKey.key });
    expect((await lastUsed())!.getTime()).toBeGreaterThan(first!.getTime() - 1000);
  });

  test("limits requests per key on every route with 429 and Retry-After; other keys are not held back", async ({ api, services, apiKey, stranger }) => {
    const limited = await startApi(services, { requestsPerMinute: 2, record: api.exercised });
    try {
      for (let i = 0; i < 2; i += 1) expect((await limited.call("GET", "/endpoints", { key: apiKey.key })).status).toBe(200);
      for (const route of ROUTES) {
        const answer = await limited.call(route.method, pathOf(route), { key: apiKey.key });
        expect(answer.status, `${route.method} ${route.path}`).toBe(429);
        expect(answer.json.error.code).toBe("rate_limited");
        const wait = Number(answer.headers.get("retry-after"));
        expect(wait).toBeGreaterThan(0);
        expect(wait).toBeLessThanOrEqual(60);
        expect(answer.json.error.message).toBe(`Too many requests were made with this API key. Try again in ${wait} s (see Retry-After).`);
      }
      expect((await limited.call("GET", "/endpoints", { key: stranger.key })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe("roles", () => {
  test("a viewer key reads, and every route that needs more answers 403 forbidden naming the role it needs", async ({ api, services, user }) => {
    const viewer = await keyWithRole(services, user.actor, "viewer");
    const refusedRoutes: string[] = [];
    for (const route of ROUTES) {
      const what = `${route.method} ${route.path}`;
      // The stream of a missing endpoint answers 404 before it opens.
      const answer = await api.call(route.method, pathOf(route), { key: viewer, ...(route.body ? { body: ACCEPTED_BODIES[route.operationId] } : {}) });
      if (roleOf(route) === "viewer") {
        expect([200, 404], what).toContain(answer.status);
        continue;
      }
      expect(answer.status, what).toBe(403);
      expect(answer.json.error).toEqual({ code: "forbidden", message: expect.stringMatching(new RegExp(`needs the ${roleOf(route)} role in this team; you are a viewer\\.$`)) });
      refusedRoutes.push(route.operationId);
    }
    // Reads are open to a viewer, except the audit log and alert rules (admins); each change needs a developer at least (delete: an admin).
    expect(refusedRoutes.sort()).toEqual([
      "createAlertRule",
      "createDestination",
      "createEndpoint",
      "deleteAlertRule",
      "deleteDestination",
      "deleteEndpoint",
      "deleteEvent",
      "listAlertRules",
      "listAuditLog",
      "recordLocalReplay",
      "replayEvent",
      "resolveDelivery",
      "resumeDestination",
      "resumeEndpoint",
      "retryEvent",
      "retryFailedEvents",
      "testAlertRule",
      "updateAlertRule",
      "updateDestination",
      "updateEndpoint",
    ]);
  });
});

describe("request bodies", () => {
  test("each route with a body refuses one that is not JSON (415), not valid JSON (400) or too large (413)", async ({ api, apiKey }) => {
    for (const route of bodyRoutes) {
      const what = `${route.method} ${route.path}`;
      const plain = await api.call(route.method, pathOf(route), { key: apiKey.key, body: "x", headers: { "content-type": "text/plain" } });
      expect(plain.status, what).toBe(415);
      expect(plain.json.error).toEqual({ code: "unsupported_media_type", message: "The body must be JSON. Send it with Content-Type: application/json." });
      const broken = await api.call(route.method, pathOf(route), { key: apiKey.key, body: "{broken" });
      expect(broken.status, what).toBe(400);
      expect(broken.json.error).toEqual({ code: "bad_request", message: "The body is not valid JSON. Check its syntax and send it again." });
      const large = await api.call(route.method, pathOf(route), { key: apiKey.key, body: { name: "x".repeat(2 * 1024 * 1024) } });
      expect(large.status, what).toBe(413);
    }
  });
});

describe("paths and methods", () => {
  test("answers 404 for unknown paths and 405 with Allow for a wrong method", async ({ api, apiKey }) => {
    for (const path of ["/nothing", "/events/a/b/c", "/"]) {
      const missing = await api.call("GET", path, { key: apiKey.key });
      expect(missing.status, path).toBe(404);
      expect(missing.json.error.message).toBe(`There is nothing at GET /api/v1${path}. See /api/v1/openapi.json for the routes.`);
      expectValid(errorSchema, missing.json, path);
    }
    const wrong = await api.call("PUT", "/endpoints", { key: apiKey.key });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, POST");
    expect(wrong.json.error).toEqual({ code: "method_not_allowed", message: "PUT is not allowed here" });
    expect((await api.call("POST", `/events/${MISSING_ID}`, { key: apiKey.key })).headers.get("allow")).toBe("GET, DELETE");
  });

  test("turned off (PUBLIC_API_ENABLED=false), every /api/v1 route answers 404", async ({ services, apiKey }) => {
    const off = createPublicApi({ services, baseUrl: BASE_URL, logger: silentLogger, enabled: false, requestsPerMinute: 100_000, bodies: defaultBodies() });
    const server = await listen((req, res) => off.handle(req, res));
    try {
      for (const path of ["/api/v1/openapi.json", ...ROUTES.map((route) => `/api/v1${pathOf(route)}`)]) {
        const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${apiKey.key}` } });
        expect(response.status, path).toBe(404);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
      }
    } finally {
      await server.close();
    }
  });
});

test("checked the handler's own answers and the role refusal of every route against the document", ({ api }) => {
  const missing: string[] = [];
  for (const route of ROUTES) {
    for (const status of Object.keys(document.paths[route.path]![route.method.toLowerCase()]!.responses)) {
      const key = `${route.method} ${route.path} ${status}`;
      const checkedHere = HANDLER_STATUSES.includes(status) || (status === ROLE_STATUS && roleOf(route) !== "viewer");
      if (checkedHere && !api.exercised.has(key)) missing.push(key);
    }
  }
  expect(missing).toEqual([]);
});
