import { useEffect, useMemo, useState } from "react";
import { initialDraft, type RequestDraft } from "../../lib/replay-edit";
import { DEFAULT_LOCAL_PORT, parseLocalPort, rememberedLocalPort, withLocalPort, type ReplayEnvironment, type TargetHint } from "../../lib/replay";
import { trpc } from "../../lib/trpc.client";

/**
 * The local server's port as typed, and the last valid one (what the Local option shows in
 * `shownHints`). localStorage exists only in the browser: the remembered port replaces 3000
 * after hydration.
 */
export function useLocalPort(hints: Record<ReplayEnvironment, TargetHint>) {
  const [portText, setPortText] = useState(String(DEFAULT_LOCAL_PORT));
  const [localPort, setLocalPort] = useState(DEFAULT_LOCAL_PORT);
  const [portError, setPortError] = useState<string | null>(null);
  useEffect(() => {
    const port = rememberedLocalPort();
    setLocalPort(port);
    setPortText(String(port));
  }, []);
  const shownHints = useMemo(() => {
    const local = hints.local;
    return local.available && local.url ? { ...hints, local: { ...local, url: withLocalPort(local.url, localPort) } } : hints;
  }, [hints, localPort]);
  function typePort(text: string) {
    setPortText(text);
    const port = parseLocalPort(text);
    if (port.ok) setLocalPort(port.port);
    setPortError(null);
  }
  return { portText, portError, setPortError, shownHints, typePort };
}

/** "Edit request": the original as loaded once, and the draft being edited (null: not editing). */
export function useRequestDraft(eventId: string, onError: (error: unknown) => void) {
  const [original, setOriginal] = useState<RequestDraft | null>(null);
  const [draft, setDraft] = useState<RequestDraft | null>(null);
  const [loading, setLoading] = useState(false);
  async function startEditing() {
    if (original) return setDraft(draft ?? original);
    setLoading(true);
    try {
      const first = initialDraft(await trpc().replays.editSource.query({ eventId }));
      setOriginal(first);
      setDraft(first);
    } catch (error) {
      onError(error);
    } finally {
      setLoading(false);
    }
  }
  return { original, draft, setDraft, loading, startEditing };
}
