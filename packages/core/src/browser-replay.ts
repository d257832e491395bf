/**
 * What a browser can do with a Local replay, and what it can know afterwards (the Fetch
 * standard's CORS rules). A page may send a cross-origin request freely only when it is
 * "simple" (GET, HEAD or POST with CORS-safelisted headers); anything else is preceded by an
 * OPTIONS preflight, and the request itself goes out only if the answer allows it. Either way
 * the page may read the answer only if it carries Access-Control-Allow-Origin. A refused
 * preflight, a hidden answer and a refused connection all reach the page as the same
 * TypeError; the dashboard tells them apart by whether a preflight was needed and by one
 * no-cors probe of the local server (an opaque answer: something listens).
 */

/** Methods a page may send without a preflight. */
const SAFELISTED_METHODS = new Set(["GET", "HEAD", "POST"]);
/** Content-Type values (their essence) a page may send without a preflight. */
const SIMPLE_CONTENT_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"]);
/** Bytes that make any header value unsafe: controls but tab, and "():<>?@[\]{} and DEL. */
const UNSAFE_VALUE = /[\u0000-\u0008\u000a-\u001f"():<>?@[\\\]{}\u007f]/;
const LANGUAGE_VALUE = /^[0-9A-Za-z *,\-.;=]*$/;
const SIMPLE_RANGE = /^bytes=\d+-\d*$/;
/** The Fetch standard's limits: one value, and all safelisted values together. */
const MAX_SAFELISTED_VALUE = 128;
const MAX_SAFELISTED_TOTAL = 1024;

function isSimpleContentType(value: string): boolean {
  const essence = value.split(";")[0]!.trim().toLowerCase();
  return SIMPLE_CONTENT_TYPES.has(essence);
}

/** Whether one header may go without a preflight (`noCors`: the stricter list a no-cors request keeps). */
function isSafelistedHeader(name: string, value: string, noCors = false): boolean {
  if (new TextEncoder().encode(value).length > MAX_SAFELISTED_VALUE) return false;
  switch (name.toLowerCase()) {
    case "accept":
      return !UNSAFE_VALUE.test(value);
    case "accept-language":
    case "content-language":
      return LANGUAGE_VALUE.test(value);
    case "content-type":
      return !UNSAFE_VALUE.test(value) && isSimpleContentType(value);
    case "range":
      return !noCors && SIMPLE_RANGE.test(value);
    default:
      return false;
  }
}

/**
 * Why the browser must ask first before sending this request (a preflight), as short phrases
 * ("the method PUT", "Content-Type: application/json", "X-Signature"); empty: it is a simple request.
 */
export function preflightReasons(method: string, headers: Array<[string, string]>): string[] {
  const reasons: string[] = [];
  if (!SAFELISTED_METHODS.has(method.toUpperCase())) reasons.push(`the method ${method.toUpperCase()}`);
  const total = headers.filter(([name, value]) => isSafelistedHeader(name, value)).reduce((sum, [, value]) => sum + value.length, 0);
  const named = new Set<string>();
  for (const [name, value] of headers) {
    if ((total <= MAX_SAFELISTED_TOTAL && isSafelistedHeader(name, value)) || named.has(name.toLowerCase())) continue;
    named.add(name.toLowerCase());
    reasons.push(name.toLowerCase() === "content-type" ? `${name}: ${value}` : name);
  }
  return reasons;
}

/**
 * A request the browser may send in no-cors mode (it cannot read the answer): GET, HEAD or
 * POST only, and the headers it would silently leave out (no-cors keeps only Accept,
 * Accept-Language, Content-Language and a simple Content-Type). Null: the method cannot go.
 */
export function noCorsRequest(method: string, headers: Array<[string, string]>): { kept: Array<[string, string]>; dropped: Array<[string, string]> } | null {
  if (!SAFELISTED_METHODS.has(method.toUpperCase())) return null;
  const kept: Array<[string, string]> = [];
  const dropped: Array<[string, string]> = [];
  for (const header of headers) (isSafelistedHeader(header[0], header[1], true) ? kept : dropped).push(header);
  return { kept, dropped };
}

/** What the browser could tell of a Local replay it sent. */
export type BrowserReplayOutcome =
  /** Sent, and the answer was readable. */
  | { kind: "answered"; status: number }
  /** A preflight was needed and failed while the server is up: the request itself never went out. */
  | { kind: "preflight_refused"; reasons: string[] }
  /** A simple request failed while the server is up: it was sent, and CORS hid the answer. */
  | { kind: "answer_hidden" }
  /** Sent in no-cors mode, as the user asked: the answer cannot be read. */
  | { kind: "opaque"; dropped: string[] }
  /** Nothing accepted the connection (nothing listens on the port): nothing was sent. */
  | { kind: "nothing_listening" }
  /** No answer in time: sent, unless it was the preflight that went unanswered. */
  | { kind: "timed_out"; preflight: boolean; seconds: number };

/**
 * Judges a failed cors-mode fetch: `reachable` is what a no-cors probe of the same origin
 * found (an opaque answer means something listens there).
 */
export function failedFetchOutcome(request: { preflight: string[]; timedOutAfter?: number; reachable: boolean }): BrowserReplayOutcome {
  if (request.timedOutAfter !== undefined) return { kind: "timed_out", preflight: request.preflight.length > 0, seconds: request.timedOutAfter };
  if (!request.reachable) return { kind: "nothing_listening" };
  return request.preflight.length > 0 ? { kind: "preflight_refused", reasons: request.preflight } : { kind: "answer_hidden" };
}

/** Whether the request reached the local server: yes, no, or unknown (a preflight that timed out). */
export function wasSent(outcome: BrowserReplayOutcome): "yes" | "no" | "unknown" {
  switch (outcome.kind) {
    case "answered":
    case "answer_hidden":
    case "opaque":
      return "yes";
    case "preflight_refused":
    case "nothing_listening":
      return "no";
    case "timed_out":
      return outcome.preflight ? "unknown" : "yes";
  }
}

/** The outcome in a few words, as the replay dialog heads it. */
export function outcomeHeadline(outcome: BrowserReplayOutcome, origin: string): string {
  switch (outcome.kind) {
    case "answered":
      return `Sent: your local server answered ${outcome.status}.`;
    case "preflight_refused":
      return "Not sent: your local server refused the CORS preflight.";
    case "answer_hidden":
      return "Sent, but the browser hid the answer (CORS).";
    case "opaque":
      return "Sent without CORS: the answer cannot be read.";
    case "nothing_listening":
      return `Not sent: nothing is listening at ${origin}.`;
    case "timed_out":
      return outcome.preflight ? `No answer within ${outcome.seconds} s: the request may not have been sent.` : `Sent, but no answer within ${outcome.seconds} s.`;
  }
}

/** What happened and why, in a sentence or two. */
export function outcomeExplanation(outcome: BrowserReplayOutcome, local: { origin: string; method: string }, dashboardOrigin: string): string {
  switch (outcome.kind) {
    case "answered":
      return "";
    case "preflight_refused":
      return `Because of ${listed(outcome.reasons)}, the browser first asked ${local.origin} for permission with an OPTIONS request (a CORS preflight). The answer did not allow ${dashboardOrigin}, so the browser never sent the ${local.method}.`;
    case "answer_hidden":
      return `The ${local.method} went out (it needs no preflight), but the answer had no Access-Control-Allow-Origin for ${dashboardOrigin}, so the browser hid its status and body.`;
    case "opaque":
      return outcome.dropped.length > 0
        ? `The body went as captured, without ${listed(outcome.dropped)} (a request without CORS may not carry them). Check your server's log for the answer.`
        : "The request went as captured. Check your server's log for the answer.";
    case "nothing_listening":
      return `The connection to ${local.origin} was refused. Start your local server, or check the port.`;
    case "timed_out":
      return outcome.preflight
        ? `Neither the OPTIONS preflight nor the ${local.method} was answered in time.`
        : `${local.origin} accepted the ${local.method} but did not answer in time.`;
  }
}

/** The attempt's recorded error: what happened, never "sent" when nothing was. Null when it was answered. */
export function outcomeRecordError(outcome: BrowserReplayOutcome, url: string, dashboardOrigin: string): string | null {
  switch (outcome.kind) {
    case "answered":
      return null;
    case "preflight_refused":
      return `not sent: the CORS preflight to ${url} was refused (allow ${dashboardOrigin} there, or use rehook listen)`;
    case "answer_hidden":
      return `sent; the browser hid the answer (no Access-Control-Allow-Origin for ${dashboardOrigin})`;
    case "opaque":
      return `sent without CORS${outcome.dropped.length > 0 ? ` and without ${outcome.dropped.join(", ")}` : ""}; the browser cannot read the answer`;
    case "nothing_listening":
      return `not sent: nothing is listening at ${new URL(url).origin} (connection refused)`;
    case "timed_out":
      return `no answer from ${url} within ${outcome.seconds} s${outcome.preflight ? " (the CORS preflight may not have been answered)" : ""}`;
  }
}

function listed(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** The one change that lets a local server accept replays from the dashboard, for common frameworks. */
export function corsFixes(dashboardOrigin: string): Array<{ framework: string; fix: string }> {
  const origin = JSON.stringify(dashboardOrigin);
  return [
    { framework: "Express", fix: `app.use(require("cors")({ origin: ${origin} }))` },
    {
      framework: "Next.js (route handler)",
      fix: `export const OPTIONS = () => new Response(null, { headers: { "Access-Control-Allow-Origin": ${origin}, "Access-Control-Allow-Methods": "*", "Access-Control-Allow-Headers": "*" } })  // and the same Access-Control-Allow-Origin on the route's answers`,
    },
    { framework: "Flask (Flask-CORS)", fix: `from flask_cors import CORS; CORS(app, origins=[${origin}])` },
    { framework: "FastAPI", fix: `app.add_middleware(CORSMiddleware, allow_origins=[${origin}], allow_methods=["*"], allow_headers=["*"])` },
    { framework: "Rails (rack-cors)", fix: `config.middleware.insert_before 0, Rack::Cors do allow do origins ${origin}; resource "*", headers: :any, methods: :any end end` },
  ];
}
