import { MAX_DEDUP_WINDOW_S, type DedupRule } from "@rehook/core";
import { UsageError } from "./cli-error.js";

// `--dedup auto|body|header:NAME|json:PATH|off`, `--dedup-window SECONDS` and `--no-dedup`
// read into the endpoint's dedup setting. Only the spelling is checked here: the use case
// checks the rule itself (header name, path, window range) and says what is wrong with it.

/** The dashboard's default too: a day covers providers' retry bursts. */
export const DEFAULT_DEDUP_WINDOW_S = 86_400;

const KEY_SPELLING = "auto, body, header:NAME, json:PATH or off";

export const dedupOptions = {
  dedup: {
    type: "string",
    description: `store repeats as duplicates and never forward them, keyed by: auto (the provider's delivery id), body (the exact bytes), header:NAME or json:PATH; off turns it off`,
  },
  "dedup-window": {
    type: "string",
    description: `with --dedup: seconds after a key's first request during which a repeat is a duplicate, 1 to ${MAX_DEDUP_WINDOW_S} (default ${DEFAULT_DEDUP_WINDOW_S}: a day)`,
  },
  "no-dedup": { type: "boolean", description: "turn deduplication off (the same as --dedup off)" },
} as const;

export interface DedupFlags {
  dedup?: string;
  "dedup-window"?: string;
  "no-dedup"?: boolean;
}

/** The key named by --dedup (never "off"). */
function keyOf(value: string): DedupRule["key"] {
  if (value === "auto" || value === "body") return value;
  const colon = value.indexOf(":");
  const kind = colon === -1 ? value : value.slice(0, colon);
  const name = colon === -1 ? "" : value.slice(colon + 1);
  if ((kind === "header" || kind === "json") && name === "") throw new UsageError(`--dedup ${kind}: needs a ${kind === "header" ? "header name, e.g. header:X-Delivery-Id" : "dotted path, e.g. json:data.id"}`);
  if (kind === "header") return { header: name };
  if (kind === "json") return { json: name };
  throw new UsageError(`--dedup must be ${KEY_SPELLING}`);
}

/** The dedup change the flags ask for: a rule, null to turn it off, undefined when none was given. */
export function dedupFromFlags(flags: DedupFlags): DedupRule | null | undefined {
  const { dedup, "dedup-window": window, "no-dedup": off = false } = flags;
  if (off && dedup !== undefined && dedup !== "off") throw new UsageError("Give --dedup or --no-dedup, not both.");
  if (off || dedup === "off") {
    if (window !== undefined) throw new UsageError("--dedup-window goes with a --dedup key, not with turning it off.");
    return null;
  }
  if (dedup === undefined) {
    if (window !== undefined) throw new UsageError(`--dedup-window needs --dedup (${KEY_SPELLING}): the rule is saved whole.`);
    return undefined;
  }
  const key = keyOf(dedup);
  if (window !== undefined && !/^\d{1,15}$/.test(window)) throw new UsageError(`--dedup-window must be a whole number of seconds, 1 to ${MAX_DEDUP_WINDOW_S}`);
  return { key, window_s: window === undefined ? DEFAULT_DEDUP_WINDOW_S : Number(window) };
}
