import type { Database } from "@rehook/db";
import { actorFor, actorInTeam, requireRole, requireUserByEmail, type Actor, type Contract } from "@rehook/services";
import type { CommandContext } from "./types.js";
import { withDatabase, type DatabaseUse } from "./with-database.js";

/** --email and --team: who the command acts as, and in which of their teams. */
export const memberOptions = {
  email: { type: "string", required: true, description: "the email of the user the command acts as" },
  team: { type: "string", description: "the slug of the team to act in (default: the user's personal team)" },
} as const;

/** Who acts: the user with this email, in the team with this slug (undefined: their personal team). */
export interface MemberRef {
  email: string;
  team?: string;
}

/**
 * Runs `work` as the user of --email in their --team, on a freshly opened database (`use`:
 * see --init), after the contract's role check: the CLI obeys the rule every transport does,
 * so a viewer cannot do with the CLI what the API refuses them.
 */
export function asMember<T>(
  context: CommandContext,
  member: MemberRef,
  contract: Pick<Contract, "role" | "summary">,
  work: (database: Database, actor: Actor) => Promise<T>,
  use: DatabaseUse = {},
): Promise<T> {
  return withDatabase(
    context,
    async (database) => {
      const { orm } = database;
      const userId = (await requireUserByEmail({ orm }, member.email)).id;
      const { actor } = member.team === undefined ? await actorFor({ orm }, { userId }) : await actorInTeam({ orm }, { userId, teamSlug: member.team });
      requireRole(actor, contract.role, contract.summary);
      // The audit log records the command as the CLI's, acting as this user.
      return work(database, { ...actor, cli: true });
    },
    use,
  );
}
