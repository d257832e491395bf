import { ROLES } from "@rehook/core";
import { z } from "zod";
import { changeMemberRole, createTeam, deleteTeam, findMembership, leaveTeam, listMembers, listTeams, removeMember, renameTeam, type MemberView, type TeamView } from "../teams.js";
import { defineContract } from "./contract.js";

// Teams and their members. Views are built in one place each and declared by their types.
const team = z.custom<TeamView>();

export const currentTeamContract = defineContract({
  name: "teams.current",
  summary: "The team this request acts in, and your role in it",
  kind: "query",
  role: "viewer",
  input: z.object({}).optional(),
  output: z.object({ id: z.string(), name: z.string(), slug: z.string(), role: z.enum(ROLES) }),
  errors: [],
  rest: { method: "GET", path: "/team", status: 200, operationId: "getTeam", summary: "The API key's team and the role the key acts with" },
  run: async (services, actor) => {
    const found = await findMembership(services, { userId: actor.userId, teamId: actor.teamId });
    // The key's own role may be weaker than its creator's: the actor's role is what applies.
    return { id: actor.teamId, name: found?.name ?? "", slug: found?.slug ?? "", role: actor.role };
  },
});

export const listTeamsContract = defineContract({
  name: "teams.list",
  summary: "The teams you belong to, your personal team first, with your role in each",
  kind: "query",
  role: "viewer",
  input: z.object({}).optional(),
  output: z.array(team),
  errors: [],
  run: (services, actor) => listTeams(services, { userId: actor.userId }),
});

export const createTeamContract = defineContract({
  name: "teams.create",
  summary: "Creates a team; you are its owner",
  kind: "mutation",
  // Anyone signed in may start a team of their own, whatever their role in the current one.
  role: "viewer",
  input: z.object({ name: z.string() }),
  output: team,
  errors: ["conflict"],
  run: (services, actor, input) => createTeam(services, { userId: actor.userId, by: actor, name: input.name }),
});

export const renameTeamContract = defineContract({
  name: "teams.rename",
  summary: "Renames the team (its slug stays)",
  kind: "mutation",
  role: "owner",
  input: z.object({ name: z.string() }),
  output: z.null(),
  errors: [],
  run: async (services, actor, input) => {
    await renameTeam(services, { teamId: actor.teamId, by: actor, name: input.name });
    return null;
  },
});

export const deleteTeamContract = defineContract({
  name: "teams.delete",
  summary: "Deletes the team with its endpoints, events, keys, invites and settings",
  kind: "mutation",
  role: "owner",
  input: z.object({}).optional(),
  output: z.null(),
  errors: [],
  run: async (services, actor) => {
    await deleteTeam(services, { teamId: actor.teamId, by: actor });
    return null;
  },
});

export const listMembersContract = defineContract({
  name: "members.list",
  summary: "The team's members with their roles, when they joined and when they were last active",
  kind: "query",
  role: "viewer",
  input: z.object({}).optional(),
  output: z.array(z.custom<MemberView>()),
  errors: [],
  run: (services, actor) => listMembers(services, { teamId: actor.teamId }),
});

export const changeMemberRoleContract = defineContract({
  name: "members.setRole",
  summary: "Changes a member's role (making or unmaking an owner needs an owner; the last owner stays one)",
  kind: "mutation",
  role: "admin",
  input: z.object({ userId: z.string(), role: z.enum(ROLES) }),
  output: z.null(),
  errors: ["forbidden", "not_found", "conflict"],
  run: async (services, actor, input) => {
    await changeMemberRole(services, actor, input);
    return null;
  },
});

export const removeMemberContract = defineContract({
  name: "members.remove",
  summary: "Removes a member at once and revokes the API keys they made for the team",
  kind: "mutation",
  role: "admin",
  input: z.object({ userId: z.string() }),
  output: z.object({ revokedKeys: z.number() }),
  errors: ["forbidden", "not_found", "conflict"],
  run: (services, actor, input) => removeMember(services, actor, input),
});

export const leaveTeamContract = defineContract({
  name: "members.leave",
  summary: "Leaves the team (the last owner cannot); the API keys you made for it are revoked",
  kind: "mutation",
  role: "viewer",
  input: z.object({}).optional(),
  output: z.object({ revokedKeys: z.number() }),
  errors: ["conflict"],
  run: (services, actor) => leaveTeam(services, actor),
});
