import { randomInt } from "node:crypto";

const SUFFIX_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
export const SLUG_SUFFIX_LENGTH = 8;
const MAX_BASE_LENGTH = 48;
const FALLBACK_BASE = "endpoint";

/** Lowercase ASCII words of a name joined by "-" ("Stripe Prod!" -> "stripe-prod"). */
export function slugifyName(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "") // accents left over by NFKD
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, MAX_BASE_LENGTH)
    .replace(/-+$/g, "");
}

export function randomSlugSuffix(pick: (max: number) => number = randomInt): string {
  let suffix = "";
  for (let i = 0; i < SLUG_SUFFIX_LENGTH; i += 1) suffix += SUFFIX_ALPHABET[pick(SUFFIX_ALPHABET.length)];
  return suffix;
}

/**
 * A capture-URL slug: the name's slug, "-", 8 random [a-z0-9].
 * A name with no ASCII letters or digits falls back to "endpoint-xxxxxxxx".
 */
export function generateSlug(name: string, pick?: (max: number) => number): string {
  const base = slugifyName(name) || FALLBACK_BASE;
  return `${base}-${randomSlugSuffix(pick)}`;
}

const SLUG_PATTERN = new RegExp(`^[a-z0-9]+(?:-[a-z0-9]+)*-[a-z0-9]{${SLUG_SUFFIX_LENGTH}}$`);

export function isValidSlug(slug: string): boolean {
  return SLUG_PATTERN.test(slug);
}
