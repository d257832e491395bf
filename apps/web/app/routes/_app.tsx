import { data, type LoaderFunctionArgs } from "@remix-run/node";
import { Outlet, useLoaderData } from "@remix-run/react";
import { ShellLayout } from "../components/shell-layout";
import { clearedNoticeCookie, readNotice } from "../lib/notice.server";
import { requireUser } from "../lib/session.server";

/** The signed-in shell: every dashboard page sits in it, and it sends visitors to /login. */
export function loader({ context, request }: LoaderFunctionArgs) {
  const user = requireUser(context, request);
  // A notice from the last action (a deletion) is shown once.
  const notice = readNotice(request);
  return notice ? data({ email: user.email, notice }, { headers: { "Set-Cookie": clearedNoticeCookie() } }) : { email: user.email, notice: null };
}

export default function AppShell() {
  const { email, notice } = useLoaderData<typeof loader>();
  return (
    <ShellLayout email={email} notice={notice}>
      <Outlet />
    </ShellLayout>
  );
}
