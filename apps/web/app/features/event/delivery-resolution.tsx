import { Link } from "@remix-run/react";
import { MAX_RESOLUTION_NOTE_LENGTH } from "@rehook/core/browser";
import { useId, useState, type FormEvent } from "react";
import { SubmitButton } from "../../components/form-fields";
import { RelativeTime } from "../../components/relative-time";
import { FormError } from "../../components/ui";
import { errorMessage } from "../../lib/errors";
import { trpc } from "../../lib/trpc.client";
import type { EventPageData } from "./event-data.server";
import "./delivery-resolution.css";

type Delivery = EventPageData["event"]["deliveries"][number];

/**
 * A failed delivery's resolution: how it was resolved (a replay to this destination that
 * delivered, or a member's note), or "Mark resolved" with a note for a member who dealt with
 * it another way. Nothing for a delivery that did not fail.
 */
export function DeliveryResolution({ eventId, delivery, locked, onResolved }: { eventId: string; delivery: Delivery; locked?: string; onResolved: () => void }) {
  if (delivery.status !== "failed") return null;
  if (delivery.resolution) return <ResolvedLine resolution={delivery.resolution} />;
  // A delivery known only by its URL (made before routing, to a destination removed since) has no destination to mark.
  if (delivery.destinationId === null) return null;
  return <MarkResolved eventId={eventId} destinationId={delivery.destinationId} locked={locked} onResolved={onResolved} />;
}

function ResolvedLine({ resolution }: { resolution: NonNullable<Delivery["resolution"]> }) {
  const byReplay = resolution.replayId !== null;
  return (
    <p className="delivery-resolution" data-testid="delivery-resolution" data-by={byReplay ? "replay" : "member"}>
      <span className="delivery-resolution-head">Resolved</span> <RelativeTime value={resolution.at} />{" "}
      {byReplay ? (
        <>
          by{" "}
          <Link to={`/replays/${resolution.replayId}`} className="text-link">
            a replay to this destination
          </Link>{" "}
          that was delivered.
        </>
      ) : (
        <>
          by <span className="fg">{resolution.userEmail ?? "a former member"}</span>:{" "}
          <q className="delivery-resolution-note" data-testid="resolution-note">
            {resolution.note}
          </q>
        </>
      )}
    </p>
  );
}

function MarkResolved({ eventId, destinationId, locked, onResolved }: { eventId: string; destinationId: string; locked?: string; onResolved: () => void }) {
  const noteId = useId();
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState("");
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (saving) return;
    if (note.trim() === "") {
      setError("Say what was done about this failure: the note is kept with the delivery and in the audit log.");
      return;
    }
    setSaving(true);
    setError(null);
    try {
      await trpc().deliveries.resolve.mutate({ eventId, destinationId, note });
      setOpen(false);
      setNote("");
      onResolved();
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setSaving(false);
    }
  }

  if (!open) {
    return (
      <div className="delivery-resolution">
        <button type="button" className="button secondary small" onClick={() => setOpen(true)} disabled={locked !== undefined} title={locked ?? "Mark this failed delivery resolved, with a note"}>
          Mark resolved
        </button>
      </div>
    );
  }
  return (
    <form className="delivery-resolution delivery-resolution-form" onSubmit={submit} noValidate data-testid="resolve-form">
      <div className="field">
        <label htmlFor={noteId}>What was done</label>
        <textarea
          id={noteId}
          name="note"
          rows={2}
          maxLength={MAX_RESOLUTION_NOTE_LENGTH}
          value={note}
          onChange={(event) => {
            setNote(event.target.value);
            setError(null);
          }}
          aria-describedby={`${noteId}-hint`}
          aria-invalid={error ? true : undefined}
          disabled={saving}
        />
        <small id={`${noteId}-hint`} className="hint">
          Kept with the delivery and in the audit log. The event counts as resolved once every failed delivery is.
        </small>
      </div>
      <FormError message={error} />
      <div className="delivery-resolution-actions">
        <button type="button" className="button secondary small" onClick={() => setOpen(false)} disabled={saving}>
          Cancel
        </button>
        <SubmitButton busy={saving} busyLabel="Saving…" className="button primary small">
          Mark resolved
        </SubmitButton>
      </div>
    </form>
  );
}
