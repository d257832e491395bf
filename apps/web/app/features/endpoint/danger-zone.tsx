import { ConfirmDialog } from "../../components/confirm-dialog";
import { IntentButton } from "../../components/form-fields";
import { Card, FormError, Icon } from "../../components/ui";

/** Delete this endpoint (it asks first, in DeleteEndpointDialog). */
export function DangerZone({ error, locked, onDelete }: { error: string | undefined; /** Why the role may not delete it. */ locked: string | undefined; onDelete: () => void }) {
  return (
    <Card title="Danger zone" className="danger-zone">
      <div className="danger-row">
        <div>
          <p className="danger-title">Delete this endpoint</p>
          <p className="muted small">The capture URL stops working and every event captured on it is deleted.</p>
        </div>
        <button type="button" className="button danger-outline" onClick={onDelete} disabled={locked !== undefined} title={locked}>
          <Icon name="trash" />
          Delete endpoint
        </button>
      </div>
      <FormError message={error} />
    </Card>
  );
}

export function DeleteEndpointDialog({ name, open, busy, onClose }: { name: string; open: boolean; busy: boolean; onClose: () => void }) {
  return (
    <ConfirmDialog
      open={open}
      onClose={onClose}
      title={`Delete “${name}”?`}
      description={
        <p>
          Deletion is permanent: it removes the endpoint and all its events. Its capture URL will answer 404 from then on. This cannot be undone.
        </p>
      }
    >
      <IntentButton intent="delete" className="button danger" busy={busy} busyLabel="Deleting…">
        Delete permanently
      </IntentButton>
    </ConfirmDialog>
  );
}
