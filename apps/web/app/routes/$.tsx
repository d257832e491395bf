import { data, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useLoaderData, useLocation } from "@remix-run/react";
import { ShellLayout } from "../components/shell-layout";
import { EmptyState, PageHeader, StandalonePage } from "../components/ui";
import "../features/account/not-found.css";

export const meta: MetaFunction = () => [{ title: "Page not found · Rehook" }];

/**
 * Any URL no other route matches answers 404: inside the dashboard's shell for a signed-in
 * user, on a plain page otherwise (a made-up URL does not ask strangers to log in).
 */
export async function loader({ context }: LoaderFunctionArgs) {
  if (!context.user) return data({ email: null, shell: null }, { status: 404 });
  // The shell's team switcher, as on every signed-in page.
  const [team, teams] = await Promise.all([context.caller.teams.current(), context.caller.teams.list()]);
  return data({ email: context.user.email, shell: { team, teams } }, { status: 404 });
}

export default function NotFound() {
  const { email, shell } = useLoaderData<typeof loader>();
  const { pathname } = useLocation();
  const explanation = (
    <p>
      Nothing here answers <code className="inline-code">{pathname}</code>. The link may be mistyped, or what it pointed to may have been deleted.
    </p>
  );
  if (!email || !shell) {
    return (
      <StandalonePage title="Page not found">
        {explanation}
        <p>
          <Link to="/login" className="button secondary">
            Log in to Rehook
          </Link>
        </p>
      </StandalonePage>
    );
  }
  return (
    <ShellLayout email={email} notice={null} team={shell.team} teams={shell.teams}>
      <PageHeader title="Page not found" description="Error 404" />
      <div className="not-found" data-testid="not-found">
        <EmptyState
          title="There is no page at this address"
          actions={
            <>
              <Link to="/" className="button primary">
                Go to your endpoints
              </Link>
              <Link to="/events" className="button secondary">
                See recent activity
              </Link>
            </>
          }
        >
          {explanation}
        </EmptyState>
      </div>
    </ShellLayout>
  );
}
