import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./test-server.js";

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

async function errorCode(response: Response): Promise<string> {
  return ((await response.json()) as { error: { code: string } }).error.code;
}

describe("/healthz and /readyz", () => {
  it("a migration the database lacks makes /readyz answer 503 migrations_pending; /healthz stays 200", async () => {
    // The first probe of this server: a cached "all applied" cannot hide the gap.
    const connection = t.rehook.database.orm.em.getConnection();
    const [last] = await connection.execute<{ id: number; name: string }[]>("select id, name from mikro_orm_migrations order by id desc limit 1");
    await connection.execute("delete from mikro_orm_migrations where id = ?", [last!.id]);
    try {
      const pending = await fetch(`${t.rehook.url}/readyz`);
      expect(pending.status).toBe(503);
      expect(await errorCode(pending)).toBe("migrations_pending");
      expect((await fetch(`${t.rehook.url}/healthz`)).status).toBe(200);
    } finally {
      await connection.execute("insert into mikro_orm_migrations (id, name) values (?, ?)", [last!.id, last!.name]);
    }
    // A pending result is never cached: the next probe sees the migration back.
    expect((await fetch(`${t.rehook.url}/readyz`)).status).toBe(200);
  });

  it("while draining, /readyz answers 503 draining and every other route still serves", async () => {
    const endpoint = await t.createEndpoint("drain");
    t.rehook.drain();
    const readiness = await fetch(`${t.rehook.url}/readyz`);
    expect(readiness.status).toBe(503);
    expect(await errorCode(readiness)).toBe("draining");
    expect((await fetch(`${t.rehook.url}/healthz`)).status).toBe(200);
    const captured = await fetch(`${t.rehook.url}/api/webhook/${endpoint.slug}`, { method: "POST", body: "{}" });
    expect(captured.status).toBe(200);
  });
});
