import { expect } from "vitest";
import { createApiKey, createEndpoint, createTeam } from "@rehook/services";
import { test } from "@rehook/vitest-config/fixtures";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { browserCookie, callTrpc, captureInto, joinTeam, liveFeedUrl, newPerson, openStream, startTeamServer } from "./team-world.js";

// A removed member loses the team at once on every instance: two servers on one database,
// the member streaming from the second, the removal made through the first.

test("removing a member through instance 1 ends their streams on instance 2 and refuses them there from then on", async ({ database }) => {
  const one = await startTeamServer(database);
  const two = await startTeamServer(database);
  const streams: Array<{ close(): void }> = [];
  try {
    const owner = await newPerson(one.services, "owner");
    const team = await createTeam(one.services, { userId: owner.id, name: "Shared payments" });
    const endpoint = await createEndpoint(one.services, { teamId: team.id, name: "stripe" });
    const member = await newPerson(one.services, "member");
    const memberActor = await joinTeam(one.services, member, team.id, "developer");
    const key = { authorization: `Bearer ${(await createApiKey(one.services, memberActor, { name: "laptop" })).key}` };
    const memberCookie = await browserCookie(two.services, member.id, team.id);
    const ownerCookie = await browserCookie(one.services, owner.id, team.id);

    // Before: instance 2 serves the member team A, by key and by session.
    expect((await fetch(`${two.url}/api/v1/endpoints/${endpoint.id}`, { headers: key })).status).toBe(200);
    expect(await callTrpc(two.url, "endpoints.list", "query", undefined, memberCookie)).toMatchObject({ status: 200, data: [{ id: endpoint.id }] });
    const stream = await openStream(`${two.url}/api/v1/endpoints/${endpoint.id}/stream`, key);
    const feed = await openStream(liveFeedUrl(two.url), { cookie: memberCookie });
    streams.push(stream, feed);
    expect([stream.response.statusCode, feed.response.statusCode]).toEqual([200, 200]);
    let ended = { stream: false, feed: false };
    void stream.ended.then(() => (ended = { ...ended, stream: true }));
    void feed.ended.then(() => (ended = { ...ended, feed: true }));
    // Both are live: an event captured through instance 1 reaches them over the bus.
    const eventId = await captureInto(one.services, endpoint.slug, '{"before":"removal"}');
    await waitFor(() => stream.text().includes(eventId) && feed.text().includes(eventId), "the event on instance 2's stream and live feed");

    const removed = await callTrpc(one.url, "members.remove", "mutation", { userId: member.id }, ownerCookie);
    expect(removed).toMatchObject({ status: 200, data: { revokedKeys: 1 } });

    await waitFor(() => ended.stream && ended.feed, "instance 2 to end the removed member's stream and live feed", 10_000);

    // From then on instance 2 refuses the key, and the session no longer reaches team A.
    expect((await fetch(`${two.url}/api/v1/endpoints/${endpoint.id}`, { headers: key })).status).toBe(401);
    expect((await fetch(`${two.url}/api/v1/team`, { headers: key })).status).toBe(401);
    const reopened = await openStream(`${two.url}/api/v1/endpoints/${endpoint.id}/stream`, key);
    streams.push(reopened);
    expect(reopened.response.statusCode).toBe(401);
    // The browser still names team A; the dashboard falls back to the member's own team.
    expect(await callTrpc(two.url, "teams.current", "query", undefined, memberCookie)).toMatchObject({ status: 200, data: { id: member.personalTeamId } });
    expect(await callTrpc(two.url, "endpoints.get", "query", { id: endpoint.id }, memberCookie)).toMatchObject({ status: 404, code: "NOT_FOUND" });
    const listed = await callTrpc(two.url, "endpoints.list", "query", undefined, memberCookie);
    expect(listed.status).toBe(200);
    expect((listed.data as Array<{ id: string }>).map((each) => each.id)).not.toContain(endpoint.id);
    expect(await callTrpc(two.url, "teams.switch", "mutation", { teamId: team.id }, memberCookie)).toMatchObject({ status: 404, code: "NOT_FOUND" });
    expect((await fetch(`${two.url}/api/events/${eventId}/body`, { headers: { cookie: memberCookie } })).status).toBe(404);
  } finally {
    for (const open of streams) open.close();
    await two.close();
    await one.close();
  }
});
