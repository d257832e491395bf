import { redirect, type ActionFunctionArgs } from "@remix-run/node";
import { errorMessage } from "../lib/errors";
import { noticeCookie } from "../lib/notice.server";
import { requireUser } from "../lib/session.server";

/** The team switcher's forms post here (components/team-switcher.tsx); there is no page. */
export const loader = () => redirect("/");

/** The list page of the section `path` is in: another team has none of this team's endpoints, events or replays. */
export function sectionOf(path: string): string {
  const section = /^\/(events|replays|settings|api-docs)(?:[/?#]|$)/.exec(path)?.[1];
  return section ? `/${section}` : "/";
}

/**
 * switch: remember the chosen team for this browser (a cookie set by teams.switch) and open
 * the same section there. create: make a team (the user owns it) and switch to it.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  requireUser(context, request);
  const form = await request.formData();
  try {
    if (form.get("intent") === "create") {
      const team = await context.caller.teams.create({ name: String(form.get("name") ?? "") });
      await context.caller.teams.switch({ teamId: team.id });
      const notice = `Team “${team.name}” created: you are its owner. Invite people from Settings → Members.`;
      return redirect("/", { status: 303, headers: { "Set-Cookie": noticeCookie(notice) } });
    }
    await context.caller.teams.switch({ teamId: String(form.get("teamId") ?? "") });
    return redirect(sectionOf(String(form.get("back") ?? "/")), 303);
  } catch (error) {
    return { error: errorMessage(error) };
  }
}
