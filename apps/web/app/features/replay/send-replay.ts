import type { draftOverrides } from "../../lib/replay-edit";
import type { ReplayAttempt, ReplayEnvironment } from "../../lib/replay";
import { trpc } from "../../lib/trpc.client";

/**
 * Sends one replay to a server-side target through replays.create (with the edits, if any).
 * Local replays go through sendLocalReplay (rehook listen, or this browser).
 */
export async function sendReplay(request: {
  eventId: string;
  environment: ReplayEnvironment;
  /** The local server's port (a local replay only). */
  localPort: number | null;
  customUrl: string;
  overrides: ReturnType<typeof draftOverrides>;
}): Promise<ReplayAttempt> {
  const { eventId, environment, customUrl, overrides } = request;
  return trpc().replays.create.mutate({ eventId, environment, customUrl: environment === "custom" ? customUrl : null, ...(overrides ? { overrides } : {}) });
}
