import type { ReactNode } from "react";
import { Form, NavLink, useLocation, useNavigation } from "@remix-run/react";
import { ShellNotice } from "./shell-notice";
import { TeamSwitcher, type TeamOption } from "./team-switcher";

/** The main navigation after Endpoints (which is also lit on an endpoint's page). */
const SECTIONS: Array<[to: string, label: string]> = [
  ["/events", "Activity"],
  ["/replays", "Replays"],
  ["/settings", "Settings"],
  ["/api-docs", "API"],
];

/** The signed-in frame: top bar (with the team switcher), navigation, the one-time notice, then the page. */
export function ShellLayout({
  email,
  notice,
  team,
  teams,
  children,
}: {
  email: string;
  notice: string | null;
  team: TeamOption;
  teams: TeamOption[];
  children: ReactNode;
}) {
  const navigation = useNavigation();
  const location = useLocation();
  const onEndpointPage = location.pathname.startsWith("/endpoints/");
  const loading = navigation.state === "loading" && !navigation.formData;
  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <div className={`progress${loading ? " is-active" : ""}`} aria-hidden="true" />
      <header className="topbar">
        <div className="topbar-inner">
          <NavLink to="/" className="brand" end aria-label="Rehook home">
            <span className="logo" aria-hidden="true">
              ↺
            </span>
            <span className="brand-name">Rehook</span>
          </NavLink>
          <TeamSwitcher team={team} teams={teams} />
          <nav className="nav" aria-label="Main">
            <NavLink to="/" end className={({ isActive }) => (isActive || onEndpointPage ? "nav-link active" : "nav-link")}>
              Endpoints
            </NavLink>
            {SECTIONS.map(([to, label]) => (
              <NavLink key={to} to={to} className="nav-link">
                {label}
              </NavLink>
            ))}
          </nav>
          <div className="account">
            <span className="account-email" title={email}>
              {email}
            </span>
            <Form method="post" action="/logout">
              <button type="submit" className="button ghost small">
                Log out
              </button>
            </Form>
          </div>
        </div>
      </header>
      <main className="page" id="main" tabIndex={-1}>
        {notice ? <ShellNotice key={notice} text={notice} /> : null}
        {children}
      </main>
    </div>
  );
}
