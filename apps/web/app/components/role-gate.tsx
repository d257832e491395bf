import type { ReactNode } from "react";
import type { Role } from "../lib/roles";
import { Icon } from "./ui";
import { useAccess } from "./use-team";

/** A line saying what the current role cannot do here and why, where the controls would be. */
export function RoleNote({ children }: { children: ReactNode }) {
  return (
    <p className="role-note" data-testid="role-note">
      <Icon name="lock" />
      <span>{children}</span>
    </p>
  );
}

/**
 * Forms the current role may not use: every control in them is disabled (a disabled
 * fieldset, which takes no room of its own), and hovering says why.
 */
export function RoleLock({ needed, children }: { needed: Role; children: ReactNode }) {
  const { allowed, reason } = useAccess(needed);
  if (allowed) return <>{children}</>;
  return (
    <fieldset className="role-lock" disabled title={reason} data-testid="role-lock">
      {children}
    </fieldset>
  );
}
