import type { LoaderFunctionArgs } from "@remix-run/node";
import { Form, NavLink, Outlet, useLoaderData } from "@remix-run/react";
import { requireUser } from "../lib/session.server";

/** The signed-in shell: every dashboard page sits in it, and it sends visitors to /login. */
export function loader({ context, request }: LoaderFunctionArgs) {
  const user = requireUser(context, request);
  return { email: user.email };
}

export default function AppShell() {
  const { email } = useLoaderData<typeof loader>();
  return (
    <div className="shell">
      <header className="topbar">
        <NavLink to="/" className="brand" end>
          <span className="logo" aria-hidden="true">↺</span> Rehook
        </NavLink>
        <nav className="nav" aria-label="Main">
          <NavLink to="/" end>
            Endpoints
          </NavLink>
          <NavLink to="/events">Activity</NavLink>
          <NavLink to="/settings">Settings</NavLink>
        </nav>
        <div className="account">
          <span className="muted small" title={email}>
            {email}
          </span>
          <Form method="post" action="/logout">
            <button type="submit" className="button ghost small">
              Log out
            </button>
          </Form>
        </div>
      </header>
      <main className="page">
        <Outlet />
      </main>
    </div>
  );
}
