import { UserError } from "@rehook/core";
import { findTeamBySlug, type Orm, type Team } from "@rehook/db";

// The server-side team commands (team create/list, member add/list/remove) are the operator's
// tools, like rehook user create: whoever can run them on the server's database holds every
// right already, so they check no role. They name teams by slug.

/** The team with this slug, or a not_found error saying how to find the right one. */
export async function requireTeam(orm: Orm, slug: string): Promise<Team> {
  const team = await findTeamBySlug(orm.em.fork(), slug);
  if (!team) throw new UserError("not_found", `There is no team with the slug ${slug}. List a user's teams with rehook team list --email EMAIL.`);
  return team;
}
