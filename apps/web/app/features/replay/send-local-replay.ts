import { sendFromBrowser, sendWithoutCors, type BrowserLocalResult, type LocalRequest } from "../../lib/local-replay";
import { rememberLocalPort, type ReplayAttempt } from "../../lib/replay";
import { trpc } from "../../lib/trpc.client";

/** How long the dialog waits for a rehook listen to report a Local replay (its own limit for the local server is 30 s). */
export const LISTEN_WAIT_SECONDS = 40;

/** What a Local replay did: through the user's rehook listen, or from this browser. */
export type LocalSend =
  /** attempt null: handed over, but the listener reported nothing in LISTEN_WAIT_SECONDS. */
  | { route: "listen"; attempt: ReplayAttempt | null }
  | { route: "browser"; result: BrowserLocalResult; attempt: ReplayAttempt; request: LocalRequest; localPort: number };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls for the listener's record: every 250 ms at first, then every second. */
async function listenerRecord(eventId: string, attemptId: string): Promise<ReplayAttempt | null> {
  const started = Date.now();
  for (let polls = 0; Date.now() - started < LISTEN_WAIT_SECONDS * 1000; polls += 1) {
    const { attempt } = await trpc().replays.localOutcome.query({ eventId, attemptId });
    if (attempt) return attempt;
    await pause(polls < 20 ? 250 : 1_000);
  }
  return null;
}

function record(eventId: string, localPort: number, result: BrowserLocalResult): Promise<ReplayAttempt> {
  const { url, status, latencyMs, body, error } = result;
  return trpc().replays.recordLocal.mutate({ eventId, localPort, localUrl: url, via: "browser", status, latencyMs, body, error });
}

/**
 * Sends a Local replay: through the user's `rehook listen` for the endpoint when one is
 * connected (the server hands it over; the listener sends the stored bytes and records the
 * answer), else from this browser, judged and recorded. `onPhase` names the step under way.
 */
export async function sendLocalReplay(eventId: string, localPort: number, onPhase: (note: string) => void): Promise<LocalSend> {
  const handoff = await trpc().replays.handToListener.mutate({ eventId });
  if (handoff.handed) {
    onPhase("Sent to your rehook listen: waiting for its answer…");
    return { route: "listen", attempt: await listenerRecord(eventId, handoff.attemptId) };
  }
  rememberLocalPort(localPort);
  onPhase("Sending from this browser…");
  const request = await trpc().replays.localRequest.query({ eventId, localPort });
  const result = await sendFromBrowser(request);
  return { route: "browser", result, attempt: await record(eventId, localPort, result), request, localPort };
}

/** The same request again without CORS (after a refused preflight, when the user asks). */
export async function resendWithoutCors(previous: Extract<LocalSend, { route: "browser" }>, eventId: string): Promise<LocalSend> {
  const result = await sendWithoutCors(previous.request);
  return { ...previous, result, attempt: await record(eventId, previous.localPort, result) };
}
