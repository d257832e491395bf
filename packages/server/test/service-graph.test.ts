import { describe, expect } from "vitest";
import { BulkReplays, createEndpoint, listEndpoints } from "@rehook/services";
import { test } from "@rehook/vitest-config/service-fixtures";

// The composition root builds one complete, frozen graph: every member a use case can ask
// for is there (no "not available on this server" at run time), and nothing can swap one.

describe("the service graph", () => {
  test("is complete: the bus, delivery, chat posts, bulk replays and the capture writer are all present", ({ services }) => {
    for (const member of ["orm", "writer", "bus", "outbound", "chat", "forwarder", "ingressRules", "sessions", "throttles", "bulkReplays"] as const) {
      expect(services[member], member).toBeDefined();
    }
    expect(services.bulkReplays).toBeInstanceOf(BulkReplays);
  });

  test("is frozen", ({ services }) => {
    expect(Object.isFrozen(services)).toBe(true);
    expect(() => Object.assign(services, { baseUrl: "http://elsewhere.test" })).toThrow(TypeError);
  });

  test("runs use cases on the file's database, scoped to the fixture user's team", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "graph" });
    expect(endpoint.webhookUrl).toBe(`http://rehook.test/api/webhook/${endpoint.slug}`);
    const listed = await listEndpoints(services, { teamId: user.teamId });
    expect(listed.map((item) => item.id)).toEqual([endpoint.id]);
  });
});
