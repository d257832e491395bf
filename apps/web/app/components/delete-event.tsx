import { useFetcher } from "@remix-run/react";
import { useState } from "react";
import { ConfirmDialog } from "./confirm-dialog";
import { FormError, Icon } from "./ui";

/** The event page's Delete button and its confirmation (posts to /events/{id}/delete). */
export function DeleteEventButton({ eventId, replayCount, locked }: { eventId: string; replayCount: number; /** Why the role may not delete it. */ locked?: string }) {
  const [confirming, setConfirming] = useState(false);
  const fetcher = useFetcher<{ error: string }>();
  const busy = fetcher.state !== "idle";
  return (
    <>
      <button
        type="button"
        className="button danger-outline"
        onClick={() => setConfirming(true)}
        disabled={locked !== undefined}
        title={locked}
        data-testid="delete-event"
      >
        <Icon name="trash" />
        Delete
      </button>
      <ConfirmDialog
        open={confirming}
        onClose={() => setConfirming(false)}
        title="Delete this event?"
        description={
          <>
            <p>
              The event, its payload and its delivery attempts are deleted
              {replayCount > 0 ? `, with its ${replayCount} replay${replayCount === 1 ? "" : "s"}` : ""}. This cannot be undone.
            </p>
            <FormError message={fetcher.data?.error} />
          </>
        }
      >
        <fetcher.Form method="post" action={`/events/${eventId}/delete`}>
          <button type="submit" className="button danger" disabled={busy} data-testid="confirm-delete-event">
            {busy ? "Deleting…" : "Delete permanently"}
          </button>
        </fetcher.Form>
      </ConfirmDialog>
    </>
  );
}
