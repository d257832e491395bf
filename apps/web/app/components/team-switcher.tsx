import { useFetcher, useLocation } from "@remix-run/react";
import { useEffect, useRef, type RefObject } from "react";
import { roleLabel, type Role } from "../lib/roles";
import { FormError, Icon } from "./ui";
import "./team-switcher.css";

export interface TeamOption {
  id: string;
  name: string;
  role: Role;
  personal: boolean;
}

/**
 * The top bar's team: its name and the user's role there; open, the user's teams (choosing
 * one switches this browser to it, posted to routes/team.tsx) and a form for a new team.
 * Names are shown as text only: they are whatever a team's owner typed.
 */
export function TeamSwitcher({ team, teams }: { team: TeamOption; teams: TeamOption[] }) {
  const details = useRef<HTMLDetailsElement>(null);
  const location = useLocation();
  const switching = useFetcher<{ error: string }>();
  const creating = useFetcher<{ error: string }>();
  useCloseOnOutsideClick(details);
  // A new page (after a switch, or any navigation) starts with the menu closed and the form empty.
  useEffect(() => {
    if (!details.current) return;
    details.current.open = false;
    details.current.querySelector<HTMLFormElement>("form.team-create")?.reset();
  }, [location.key]);
  const busy = switching.state !== "idle" || creating.state !== "idle";
  return (
    <details className="team-switcher" ref={details} data-testid="team-switcher">
      <summary className="team-switcher-button" aria-label={`Team: ${team.name} (${team.role}). Switch team`} title={team.name}>
        <span className="team-mark" aria-hidden="true">
          {initialOf(team.name)}
        </span>
        <span className="team-switcher-name" data-testid="current-team">
          {team.name}
        </span>
        <span className="team-switcher-role">{roleLabel(team.role)}</span>
        <svg className="team-switcher-chevron" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
          <path d="M4 6l4 4 4-4" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
      </summary>
      <div className="team-menu">
        <p className="team-menu-label" id="team-menu-label">
          Your teams
        </p>
        <switching.Form method="post" action="/team">
          <input type="hidden" name="intent" value="switch" />
          <input type="hidden" name="back" value={location.pathname} />
          <ul className="team-options" aria-labelledby="team-menu-label">
            {teams.map((option) => {
              const current = option.id === team.id;
              return (
                <li key={option.id}>
                  <button
                    type="submit"
                    name="teamId"
                    value={option.id}
                    className={`team-option${current ? " is-current" : ""}`}
                    aria-current={current ? "true" : undefined}
                    disabled={busy}
                    data-testid="team-option"
                  >
                    <span className="team-mark" aria-hidden="true">
                      {initialOf(option.name)}
                    </span>
                    <span className="team-option-text">
                      <span className="team-option-name">{option.name}</span>
                      <span className="team-option-meta">
                        {roleLabel(option.role)}
                        {option.personal ? " · personal" : ""}
                      </span>
                    </span>
                    {current ? <span className="team-option-check" aria-hidden="true">✓</span> : null}
                  </button>
                </li>
              );
            })}
          </ul>
        </switching.Form>
        <FormError message={switching.data?.error} />
        <creating.Form method="post" action="/team" className="team-create" noValidate>
          <input type="hidden" name="intent" value="create" />
          <label htmlFor="new-team-name" className="team-menu-label">
            New team
          </label>
          <div className="team-create-row">
            <input id="new-team-name" name="name" type="text" required maxLength={100} autoComplete="off" placeholder="Payments" />
            <button type="submit" className="button secondary small" disabled={busy}>
              <Icon name="plus" />
              {creating.state !== "idle" ? "Creating…" : "Create team"}
            </button>
          </div>
          <small className="hint">You will be its owner, and can invite others from Settings.</small>
        </creating.Form>
        <FormError message={creating.data?.error} />
      </div>
    </details>
  );
}

/** The first letter of a team's name (a surrogate pair kept whole), for its mark. */
function initialOf(name: string): string {
  return (Array.from(name.trim())[0] ?? "?").toUpperCase();
}

/** Closes the menu on a click outside it, and on Escape. */
function useCloseOnOutsideClick(ref: RefObject<HTMLDetailsElement | null>) {
  useEffect(() => {
    function onPointer(event: MouseEvent) {
      const element = ref.current;
      if (element?.open && event.target instanceof Node && !element.contains(event.target)) element.open = false;
    }
    function onKey(event: KeyboardEvent) {
      const element = ref.current;
      if (event.key === "Escape" && element?.open) {
        element.open = false;
        element.querySelector("summary")?.focus();
      }
    }
    document.addEventListener("click", onPointer);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("click", onPointer);
      document.removeEventListener("keydown", onKey);
    };
  }, [ref]);
}
