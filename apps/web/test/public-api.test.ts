import { describe, expect, it } from "vitest";
import { DashboardClient } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

// The public API's routes are tested against the OpenAPI document in packages/http/test
// (api-v1-*.test.ts). Here: the server mounts it under /api/v1 with its configuration.

async function keyFor(t: TestServer, email: string): Promise<string> {
  const client = new DashboardClient(t.rehook.url);
  await client.postForm("/signup", { email, password: "a long enough password" });
  return ((await client.mutate("apiKeys.create", { name: "tests" })).body.result!.data.json as { key: string }).key;
}

describe("/api/v1 on the server", () => {
  it("serves the API and its document under /api/v1, limited per key as API_RATE_LIMIT_PER_MINUTE says", async () => {
    const t = await startTestServer({ API_RATE_LIMIT_PER_MINUTE: "2" });
    try {
      const document = await fetch(`${t.rehook.url}/api/v1/openapi.json`);
      expect(document.status).toBe(200);
      expect(((await document.json()) as { openapi: string }).openapi).toBe("3.1.0");
      const key = await keyFor(t, "api-limited@example.com");
      const call = () => fetch(`${t.rehook.url}/api/v1/endpoints`, { headers: { authorization: `Bearer ${key}` } });
      expect((await call()).status).toBe(200);
      expect((await call()).status).toBe(200);
      const limited = await call();
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  });

  it("PUBLIC_API_ENABLED=false turns every /api/v1 route into 404", async () => {
    const off = await startTestServer({ PUBLIC_API_ENABLED: "false" });
    try {
      for (const path of ["/api/v1/events", "/api/v1/openapi.json", "/api/v1/endpoints", "/api/v1/team"]) {
        const response = await fetch(`${off.rehook.url}${path}`, { headers: { authorization: "Bearer pk_live_unused" } });
        expect(response.status, path).toBe(404);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
      }
    } finally {
      await off.close();
    }
  });
});
