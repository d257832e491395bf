import { ConfigError, UserError, type SsoConfig } from "@rehook/core";
import { findTeamBySlug, markTeamMadeByOperator, type EntityManager, type Team } from "@rehook/db";
import type { ServiceContext } from "./context.js";

/**
 * The team with this slug if it may be OIDC_DEFAULT_TEAM: a shared team an operator made. Any
 * user can make a team, so a slug alone says nothing about whose it is: a team made first
 * with the configured slug (or taking it while the operator's got a suffix) would collect
 * every account single sign-on creates.
 */
export async function operatorTeamBySlug(em: EntityManager, slug: string): Promise<Team | null> {
  const team = await findTeamBySlug(em, slug);
  return team && team.personalOf === null && team.madeByOperator ? team : null;
}

/**
 * At start: OIDC_DEFAULT_TEAM must name a team an operator made, or Rehook does not start
 * (one line: what is wrong and what to do). Checked again at each sign-up by single sign-on.
 */
export async function requireDefaultTeam(ctx: Pick<ServiceContext, "orm">, sso: SsoConfig | null | undefined): Promise<void> {
  const slug = sso?.defaultTeam;
  if (!slug) return;
  const em = ctx.orm.em.fork();
  if (await operatorTeamBySlug(em, slug)) return;
  const team = await findTeamBySlug(em, slug);
  const create = "create one with rehook team create --email <owner> --name <name> on the server's host and set OIDC_DEFAULT_TEAM to the slug it prints, or unset OIDC_DEFAULT_TEAM";
  if (!team) throw new ConfigError(`invalid OIDC_DEFAULT_TEAM: there is no team ${slug}; ${create}`);
  if (team.personalOf !== null) throw new ConfigError(`invalid OIDC_DEFAULT_TEAM: ${slug} is a user's personal team; ${create}`);
  throw new ConfigError(
    `invalid OIDC_DEFAULT_TEAM: team ${slug} was not made by an operator (any user can make a team with that slug); if it is yours, mark it with rehook team adopt --slug ${slug} on the server's host, else ${create}`,
  );
}

/** `rehook team adopt`: the operator vouches for an existing shared team, which may then be OIDC_DEFAULT_TEAM. */
export async function adoptTeam(ctx: Pick<ServiceContext, "orm">, input: { slug: string }): Promise<{ id: string; name: string; slug: string }> {
  const em = ctx.orm.em.fork();
  if (!(await markTeamMadeByOperator(em, input.slug))) {
    throw new UserError("not_found", `There is no shared team ${input.slug} (a personal team cannot be adopted). List a user's teams with rehook team list --email EMAIL.`);
  }
  const team = (await findTeamBySlug(em, input.slug))!;
  return { id: team.id, name: team.name, slug: team.slug };
}
