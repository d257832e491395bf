import { TRPCError } from "@trpc/server";
import { findMembership, settingsContracts as settings, teamChoiceCookie, teamContracts as teams } from "@rehook/services";
import { z } from "zod";
import { mutationOf, queryOf } from "../contract-procedure.js";
import { protectedProcedure, router } from "../trpc.js";

export const teamsRouter = router({
  list: queryOf(teams.listTeamsContract),
  /** The team the dashboard is in now, and the role held there (the layout shows it and hides what the role cannot do). */
  current: protectedProcedure.query(({ ctx }) => ctx.team),
  create: mutationOf(teams.createTeamContract),
  rename: mutationOf(teams.renameTeamContract),
  delete: mutationOf(teams.deleteTeamContract),
  /** Remembers the team for this browser (a cookie); only a team the user belongs to. */
  switch: protectedProcedure.input(z.object({ teamId: z.string() })).mutation(async ({ ctx, input }) => {
    const team = await findMembership(ctx.services, { userId: ctx.user.id, teamId: input.teamId });
    if (!team) throw new TRPCError({ code: "NOT_FOUND", message: "You are not a member of that team (any more). Reload the page to see your teams." });
    ctx.setCookie(teamChoiceCookie(ctx.services, team.id));
    return team;
  }),
});

export const membersRouter = router({
  list: queryOf(teams.listMembersContract),
  setRole: mutationOf(teams.changeMemberRoleContract),
  remove: mutationOf(teams.removeMemberContract),
  leave: mutationOf(teams.leaveTeamContract),
  /** Opened an invite link while signed in: join its team (and switch to it). */
  acceptInvite: mutationOf(settings.acceptInviteContract),
});
