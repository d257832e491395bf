import { data, type LoaderFunctionArgs } from "@remix-run/node";
import { Outlet, useLoaderData } from "@remix-run/react";
import { ShellLayout } from "../components/shell-layout";
import { clearedNoticeCookie, readNotice } from "../lib/notice.server";
import { requireUser } from "../lib/session.server";

/**
 * The signed-in shell: every dashboard page sits in it, and it sends visitors to /login. It
 * also loads the team the browser is in and the user's teams (the switcher; pages read the
 * role from here with useTeam).
 */
export async function loader({ context, request }: LoaderFunctionArgs) {
  const user = requireUser(context, request);
  const [team, teams] = await Promise.all([context.caller.teams.current(), context.caller.teams.list()]);
  // A notice from the last action (a deletion) is shown once.
  const notice = readNotice(request);
  const shell = { email: user.email, team, teams, notice };
  return notice ? data(shell, { headers: { "Set-Cookie": clearedNoticeCookie() } }) : shell;
}

export default function AppShell() {
  const { email, notice, team, teams } = useLoaderData<typeof loader>();
  return (
    <ShellLayout email={email} notice={notice} team={team} teams={teams}>
      {/* Another team, another page: its state and live streams (opened as the old team) start again. */}
      <Outlet key={team.id} />
    </ShellLayout>
  );
}
