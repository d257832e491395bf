import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { acceptInvite, actorFor, createInvite, createTeam, createUser, listTeams, runContract, teamContracts } from "@rehook/services";
import { keyWithRole, PASSWORD, test, unexercised } from "./api-server.js";

// GET /api/v1/team: the key's team, and the role the key acts with (the weaker of its own and
// its creator's role in the team now).

test("answers the key's team with the key's own role", async ({ api, services, user, apiKey }) => {
  const personal = (await listTeams(services, { userId: user.id })).find((team) => team.id === user.teamId)!;
  const developer = await api.call("GET", "/team", { key: apiKey.key });
  expect(developer.status).toBe(200);
  expect(developer.json).toEqual({ id: user.teamId, name: personal.name, slug: personal.slug, role: "developer" });
  for (const role of ["viewer", "admin", "owner"] as const) {
    expect((await api.call("GET", "/team", { key: await keyWithRole(services, user.actor, role) })).json, role).toEqual({ ...developer.json, role });
  }
});

test("answers another team's key with that team, never the creator's personal one", async ({ api, services, user }) => {
  const shared = await createTeam(services, { userId: user.id, name: `Payments ${randomBytes(3).toString("hex")}` });
  const key = await keyWithRole(services, { userId: user.id, teamId: shared.id, role: "owner" }, "developer");
  expect((await api.call("GET", "/team", { key })).json).toEqual({ id: shared.id, name: shared.name, slug: shared.slug, role: "developer" });
});

test("answers with the creator's role once it is weaker than the key's", async ({ api, services, user }) => {
  const member = await createUser(services, { email: `member-${randomBytes(6).toString("hex")}@example.com`, password: PASSWORD });
  const token = new URL((await createInvite(services, user.actor, { role: "admin" })).url).searchParams.get("invite")!;
  await acceptInvite(services, { userId: member.id, token });
  const { actor } = await actorFor(services, { userId: member.id, teamId: user.teamId });
  expect(actor).toMatchObject({ teamId: user.teamId, role: "admin" });
  const key = await keyWithRole(services, actor, "admin");
  expect((await api.call("GET", "/team", { key })).json).toMatchObject({ id: user.teamId, role: "admin" });

  await runContract(teamContracts.changeMemberRoleContract, services, user.actor, { userId: member.id, role: "viewer" });
  expect((await api.call("GET", "/team", { key })).json).toMatchObject({ id: user.teamId, role: "viewer" });
});

test("exercised every answer its route declares, each checked against the document", ({ api }) => {
  expect(unexercised(api, "team")).toEqual([]);
});
