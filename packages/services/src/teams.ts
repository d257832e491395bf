import { forbiddenMessage, MAX_TEAMS_PER_USER, personalTeamName, roleAllows, teamNameSchema, teamSlugCandidates, UserError, uuidv7, type Role } from "@rehook/core";
import {
  announceAccessChange,
  deleteTeam as deleteTeamRows,
  findTeamById,
  findUserById,
  insertTeam,
  listTeamMembers,
  membershipOf,
  removeTeamMember,
  renameTeam as renameTeamRow,
  setTeamMemberRole,
  teamsOfUser,
  type EntityManager,
  type MemberChange,
  type TeamMembership,
} from "@rehook/db";
import type { Actor } from "./contracts/contract.js";
import type { ServiceContext } from "./context.js";
import { parseInput } from "./validation.js";
import { recordAudit, type AuditedBy } from "./audit.js";

/** A team as its member sees it: their role in it, and whether it is their personal team. */
export type TeamView = TeamMembership;

/**
 * Inserts a team owned by `ownerId` with the first free slug its name gives. Runs inside the
 * caller's transaction when `em` is one (sign-up makes the personal team with the user).
 */
export async function insertTeamNamed(em: EntityManager, input: { name: string; ownerId: string; personal: boolean; madeByOperator?: boolean }): Promise<TeamView> {
  const candidates = teamSlugCandidates(input.name);
  const taken = new Set(
    (await em.getConnection().execute<Array<{ slug: string }>>("select slug from teams where slug = any(?::text[])", [`{${candidates.join(",")}}`], "all", em.getTransactionContext())).map((row) => row.slug),
  );
  const slug = candidates.find((candidate) => !taken.has(candidate)) ?? `${candidates[0]}-${uuidv7().slice(-12)}`;
  const team = await insertTeam(em, { id: uuidv7(), name: input.name, slug, ownerId: input.ownerId, personal: input.personal, madeByOperator: input.madeByOperator ?? false });
  return { id: team.id, name: team.name, slug: team.slug, role: "owner", personal: input.personal };
}

/**
 * Creates a team; its creator is its owner. It is an operator's team (it may be
 * OIDC_DEFAULT_TEAM) when the CLI on the server's host makes it (`byOperator`) or its creator
 * is a server admin.
 */
export async function createTeam(ctx: Pick<ServiceContext, "orm">, input: { userId: string; by?: AuditedBy; name: string; byOperator?: boolean }): Promise<TeamView> {
  const name = parseInput(teamNameSchema, input.name);
  return ctx.orm.em.fork().transactional(async (em) => {
    if ((await teamsOfUser(em, input.userId)).length >= MAX_TEAMS_PER_USER) {
      throw new UserError("conflict", `You belong to ${MAX_TEAMS_PER_USER} teams, the most one user can. Leave one you no longer use, then try again.`);
    }
    const madeByOperator = input.byOperator === true || (await findUserById(em, input.userId))?.isAdmin === true;
    const team = await insertTeamNamed(em, { name, ownerId: input.userId, personal: false, madeByOperator });
    // The new team's first entry: who made it (whichever team they acted from).
    await recordAudit(em, input.by ?? { userId: input.userId, teamId: team.id }, { teamId: team.id, action: "team.create", target: { type: "team", id: team.id, name: team.name }, changes: { slug: team.slug } });
    return team;
  });
}

/** The user's membership of one team (null: not a member): one indexed read, not the whole list. */
export async function findMembership(ctx: Pick<ServiceContext, "orm">, input: { userId: string; teamId: string }): Promise<TeamView | null> {
  return membershipOf(ctx.orm.em.fork(), input.userId, { id: input.teamId });
}

/** The user's teams: their personal team first, then by name. */
export async function listTeams(ctx: Pick<ServiceContext, "orm">, input: { userId: string }): Promise<TeamView[]> {
  return teamsOfUser(ctx.orm.em.fork(), input.userId);
}

/**
 * Who a signed-in user is in a team: the team they chose (the dashboard's remembered choice)
 * if they still belong to it, else their personal team, else their first team. A user who
 * belongs to none (they left every team) gets a new personal team, so the dashboard always
 * has somewhere to be.
 */
export async function actorFor(ctx: Pick<ServiceContext, "orm">, input: { userId: string; teamId?: string | null }): Promise<{ actor: Actor; team: TeamView }> {
  const em = ctx.orm.em.fork();
  const chosen = input.teamId ? await membershipOf(em, input.userId, { id: input.teamId }) : null;
  const team = chosen ?? (await teamsOfUser(em, input.userId))[0] ?? (await newPersonalTeam(em, input.userId));
  return { actor: { userId: input.userId, teamId: team.id, role: team.role }, team };
}

/** The actor for a team named by slug (the CLI's --team), or not_found when the user is not in it. */
export async function actorInTeam(ctx: Pick<ServiceContext, "orm">, input: { userId: string; teamSlug: string }): Promise<{ actor: Actor; team: TeamView }> {
  const team = await membershipOf(ctx.orm.em.fork(), input.userId, { slug: input.teamSlug });
  if (!team) throw new UserError("not_found", `There is no team ${input.teamSlug} with this user in it. List the user's teams with rehook team list --email EMAIL.`);
  return { actor: { userId: input.userId, teamId: team.id, role: team.role }, team };
}

async function newPersonalTeam(em: EntityManager, userId: string): Promise<TeamView> {
  const user = await findUserById(em, userId);
  if (!user) throw new UserError("unauthorized", "Sign in first, then try again.");
  return insertTeamNamed(em, { name: personalTeamName(user.email), ownerId: userId, personal: true });
}

export async function renameTeam(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; by?: AuditedBy; name: string }): Promise<void> {
  const name = parseInput(teamNameSchema, input.name);
  await ctx.orm.em.fork().transactional(async (em) => {
    const before = await findTeamById(em, input.teamId);
    await renameTeamRow(em, input.teamId, name);
    await recordAudit(em, input.by, { teamId: input.teamId, action: "team.rename", target: { type: "team", id: input.teamId, name }, changes: { name: { before: before?.name ?? null, after: name } } });
  });
}

/** Deletes the team and everything it owns: its endpoints with their events, keys, invites and settings. */
export async function deleteTeam(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; by?: AuditedBy }): Promise<void> {
  const em = ctx.orm.em.fork();
  const members = await em.transactional(async (tx) => {
    const team = await findTeamById(tx, input.teamId);
    const found = await listTeamMembers(tx, input.teamId);
    await deleteTeamRows(tx, input.teamId);
    // The team's entries stay (audit_log has no foreign key): they say who deleted it.
    await recordAudit(tx, input.by, { teamId: input.teamId, action: "team.delete", target: { type: "team", id: input.teamId, name: team?.name ?? null } });
    return found;
  });
  // Open streams of every member end (their access is gone with the team).
  for (const member of members) await announceAccessChange(em, { teamId: input.teamId, userId: member.userId });
}

export interface MemberView {
  userId: string;
  email: string;
  role: Role;
  joinedAt: Date;
  lastActiveAt: Date | null;
  /** Active API keys this member made for the team (revoked if they are removed). */
  activeKeys: number;
}

/** The team's members, owners first. */
export async function listMembers(ctx: Pick<ServiceContext, "orm">, input: { teamId: string }): Promise<MemberView[]> {
  return listTeamMembers(ctx.orm.em.fork(), input.teamId);
}

/** Owners are made and unmade by owners only: an admin cannot take an owner's place, or give it. */
function requireOwnerFor(actor: Actor, touchesOwner: boolean): void {
  if (touchesOwner && !roleAllows(actor.role, "owner")) throw new UserError("forbidden", forbiddenMessage("owner", actor.role, "Making or changing an owner"));
}

function memberOutcome(change: MemberChange, userId: string): { revokedKeys: number } {
  if (change.outcome === "not_member") throw new UserError("not_found", `There is no member ${userId} in this team. Reload the members list.`);
  if (change.outcome === "last_owner") {
    throw new UserError("conflict", "A team always keeps at least one owner. Make another member an owner first, or delete the team instead.");
  }
  return { revokedKeys: change.revokedKeys };
}

/** A member's role and email in the team (null: not a member), read before a change so the audit entry names them. */
async function memberOf(em: EntityManager, teamId: string, userId: string): Promise<{ role: Role; email: string } | null> {
  const rows = await em.execute<Array<{ role: Role; email: string }>>(
    "select m.role, u.email from team_members m join users u on u.id = m.user_id where m.team_id = ? and m.user_id = ?",
    [teamId, userId],
  );
  return rows[0] ?? null;
}

export async function changeMemberRole(ctx: Pick<ServiceContext, "orm">, actor: Actor, input: { userId: string; role: Role }): Promise<void> {
  await ctx.orm.em.fork().transactional(async (em) => {
    const current = await memberOf(em, actor.teamId, input.userId);
    requireOwnerFor(actor, current?.role === "owner" || input.role === "owner");
    memberOutcome(await setTeamMemberRole(em, actor.teamId, input.userId, input.role), input.userId);
    await recordAudit(em, actor, { action: "member.role_change", target: memberTarget(input.userId, current), changes: { role: { before: current?.role ?? null, after: input.role } } });
  });
}

const memberTarget = (userId: string, member: { email: string } | null) => ({ type: "member" as const, id: userId, name: member?.email ?? null });

/** Removes a member at once (their sessions, keys and streams lose the team); the keys they made for it are revoked. */
export async function removeMember(ctx: Pick<ServiceContext, "orm">, actor: Actor, input: { userId: string }): Promise<{ revokedKeys: number }> {
  return ctx.orm.em.fork().transactional(async (em) => {
    const current = await memberOf(em, actor.teamId, input.userId);
    requireOwnerFor(actor, current?.role === "owner");
    const outcome = memberOutcome(await removeTeamMember(em, actor.teamId, input.userId), input.userId);
    await recordAudit(em, actor, { action: "member.remove", target: memberTarget(input.userId, current), changes: { role: current?.role ?? null, revoked_keys: outcome.revokedKeys } });
    return outcome;
  });
}

/** Leaves the actor's team (any role; the last owner cannot). */
export async function leaveTeam(ctx: Pick<ServiceContext, "orm">, actor: Actor): Promise<{ revokedKeys: number }> {
  return ctx.orm.em.fork().transactional(async (em) => {
    const current = await memberOf(em, actor.teamId, actor.userId);
    const outcome = memberOutcome(await removeTeamMember(em, actor.teamId, actor.userId), actor.userId);
    await recordAudit(em, actor, { action: "member.remove", target: memberTarget(actor.userId, current), changes: { left: true, revoked_keys: outcome.revokedKeys } });
    return outcome;
  });
}
