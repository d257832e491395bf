/**
 * Error messages are full sentences that say what to do next, on every surface (dashboard,
 * API, CLI). These turn validation problems and missing records into such sentences.
 */

/** "name must not be empty" → "Name must not be empty." (first letter up, a full stop unless it ends a sentence already). */
export function asSentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") return trimmed;
  const capitalised = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}

const WORDS: Record<string, string> = { url: "URL", id: "ID", ip: "IP", api: "API", http: "HTTP" };

/** A field path as words: ["destination_url"] → "destination URL". */
export function fieldLabel(path: ReadonlyArray<PropertyKey>): string {
  const last = [...path].reverse().find((part) => typeof part === "string") as string | undefined;
  if (!last) return "";
  return last
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .split(/[_\s]+/)
    .map((word) => WORDS[word.toLowerCase()] ?? word.toLowerCase())
    .join(" ");
}

/** The part of a zod issue this needs (no zod import: core's browser side stays small). */
export interface ValidationIssue {
  code: string;
  path: ReadonlyArray<PropertyKey>;
  message: string;
}

/**
 * One validation problem as a sentence: a missing field is "Name is required.", a message that
 * names its field already is kept ("password must be …" → "Password must be …."), any other
 * gets its field in front ("Email: must be a valid email address." reads as "Email must be …").
 */
export function issueSentence(issue: ValidationIssue): string {
  const label = fieldLabel(issue.path);
  // Zod reports a missing field as a wrong type whose received value is undefined.
  if (issue.code === "invalid_type" && /received undefined$/.test(issue.message) && label) return asSentence(`${label} is required`);
  if (!label) return asSentence(issue.message);
  const message = issue.message.trim();
  const lower = message.toLowerCase();
  const names = [label.toLowerCase(), String(issue.path.at(-1)).toLowerCase()];
  if (names.some((name) => lower.startsWith(name))) return asSentence(message);
  // Zod's own wording ("Invalid input: expected number, received string") reads best after the field.
  if (/^[A-Z]/.test(message)) return asSentence(`${label}: ${message[0]!.toLowerCase()}${message.slice(1)}`);
  return asSentence(`${label} ${message}`);
}

/** What a missing (or another user's) record answers, with where to look instead. */
export function notFoundMessage(kind: "event" | "endpoint" | "endpoint slug" | "destination", key: string): string {
  switch (kind) {
    case "destination":
      return `This endpoint has no destination with the id ${key}. It may have been removed; list the endpoint's destinations to find the right id.`;
    case "event":
      return `There is no event with the id ${key}. It may have been deleted already.`;
    case "endpoint":
      return `There is no endpoint with the id ${key}. It may have been deleted; list your endpoints to find the right id.`;
    case "endpoint slug":
      return `There is no endpoint with the slug ${key}. Check the slug, or list your endpoints to find it.`;
  }
}
