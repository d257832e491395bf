import { z } from "zod";
import { randomSlugSuffix, slugifyName } from "./slug.js";
import { safeText } from "./text-input.js";

export const MAX_TEAM_NAME_LENGTH = 100;
/** How many teams one user may belong to (a bound on the switcher and on what sign-in reads). */
export const MAX_TEAMS_PER_USER = 100;

export const teamNameSchema = safeText("the team's name")
  .trim()
  .min(1, "give the team a name")
  .max(MAX_TEAM_NAME_LENGTH, `the team's name must be at most ${MAX_TEAM_NAME_LENGTH} characters`);

/** A personal team is named after the part of its user's email before the @. */
export function personalTeamName(email: string): string {
  const local = email.split("@")[0] ?? "";
  return (local || email).slice(0, MAX_TEAM_NAME_LENGTH);
}

/**
 * The slugs to try for a new team, in order: the name's own slug, then the same with a random
 * suffix (a taken slug is tried again with another suffix).
 */
export function teamSlugCandidates(name: string, attempts = 4, pick?: (max: number) => number): string[] {
  const base = slugifyName(name).slice(0, 40).replace(/-+$/g, "") || "team";
  return [base, ...Array.from({ length: attempts - 1 }, () => `${base}-${randomSlugSuffix(pick).slice(0, 6)}`)];
}

const TEAM_SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function isTeamSlug(value: string): boolean {
  return value.length <= 64 && TEAM_SLUG_PATTERN.test(value);
}
