import type { draftOverrides } from "../../lib/replay-edit";
import { performLocalReplay, rememberLocalPort, type ReplayAttempt, type ReplayEnvironment } from "../../lib/replay";
import { trpc } from "../../lib/trpc.client";

/**
 * Sends one replay. Server-side targets go through replays.create (with the edits, if any); a
 * local replay is sent from this browser and recorded afterwards.
 */
export async function sendReplay(request: {
  eventId: string;
  environment: ReplayEnvironment;
  /** The local server's port (a local replay only). */
  localPort: number | null;
  customUrl: string;
  overrides: ReturnType<typeof draftOverrides>;
}): Promise<ReplayAttempt> {
  const { eventId, environment, localPort, customUrl, overrides } = request;
  if (environment === "local" && localPort !== null) {
    rememberLocalPort(localPort);
    const local = await trpc().replays.localRequest.query({ eventId, localPort });
    const result = await performLocalReplay(local);
    return trpc().replays.recordLocal.mutate({ eventId, localPort, ...result });
  }
  return trpc().replays.create.mutate({ eventId, environment, customUrl: environment === "custom" ? customUrl : null, ...(overrides ? { overrides } : {}) });
}
