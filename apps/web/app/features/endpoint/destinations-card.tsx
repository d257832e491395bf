import { Form } from "@remix-run/react";
import { breakerSummary } from "@rehook/core/browser";
import { useEffect, useState, type ReactNode } from "react";
import { Badge } from "../../components/badges";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { RetryPolicyFields } from "../../components/delivery";
import { CheckboxField, IntentButton, SubmitButton, TextField, UrlField } from "../../components/form-fields";
import { RelativeTime } from "../../components/relative-time";
import { useAccess } from "../../components/use-team";
import { Card, FormError, FormSuccess, Icon } from "../../components/ui";
import { filterSummary, filterText, MAX_DESTINATIONS, MAX_FILTER_BYTES, MAX_RATE_LIMIT, rateLimitText, retriesText, type Destination } from "../../lib/destinations";
import type { DestinationIntent } from "./endpoint-action.server";
import { FilterTester } from "./filter-tester";
import "./destinations.css";

/*
 * The endpoint page's Destinations section: every destination in order (the first is the one
 * the Settings and Retries cards edit), each with its state, filter, pace and order, and
 * Edit, Disable/Enable, Resume and Remove; then Add destination. Names, URLs and filters are
 * the tenant's text and are rendered as text only.
 */

export type DestinationResult = { intent: DestinationIntent; ok: boolean; error: string | null; destinationId: string; savedAt: number } | undefined;

/** What is being sent: the intent and the destination it names. */
export type PendingDestination = { intent: string; destinationId: string } | null;

export function DestinationsCard({
  endpointId,
  destinations,
  result: latest,
  pending,
}: {
  endpointId: string;
  destinations: Destination[];
  /** The last destination form's answer (undefined once another form is sent, or the data reloaded). */
  result: DestinationResult;
  pending: PendingDestination;
}) {
  // Kept once known: a reload of the page's data (the live refresh after Resume forwarding) ends the action's data.
  const [result, setResult] = useState(latest);
  useEffect(() => {
    if (latest) setResult(latest);
  }, [latest]);
  const { allowed, reason } = useAccess("developer");
  const locked = allowed ? undefined : reason;
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [removing, setRemoving] = useState<Destination | null>(null);
  const full = destinations.length >= MAX_DESTINATIONS;

  // A saved form closes; a removal closes its dialog whatever came of it (an error shows on the card).
  useEffect(() => {
    if (!result) return;
    if (result.ok && result.intent === "destinationCreate") setAdding(false);
    if (result.ok && result.intent === "destinationUpdate") setEditing(null);
    if (result.intent === "destinationDelete") setRemoving(null);
  }, [result]);

  const createResult = result?.intent === "destinationCreate" ? result : undefined;
  const removeError = result?.intent === "destinationDelete" && !result.ok ? result.error : null;
  const removed = result?.intent === "destinationDelete" && result.ok;
  return (
    <Card
      title={
        <>
          Destinations <span className="count-pill">{destinations.length}</span>
        </>
      }
      id="destinations"
      className="destinations-card"
      description="Every captured event is sent to each enabled destination whose filter it matches, each with its own retries, pace and circuit breaker. Changes apply to events captured from now on."
      actions={
        adding ? undefined : (
          <button
            type="button"
            className="button secondary"
            onClick={() => {
              setResult(undefined);
              setAdding(true);
            }}
            disabled={full || locked !== undefined}
            title={locked ?? (full ? `An endpoint forwards to at most ${MAX_DESTINATIONS} destinations; remove one before adding another.` : undefined)}
          >
            <Icon name="plus" />
            Add destination
          </button>
        )
      }
    >
      {destinations.length === 0 ? (
        <p className="muted" data-testid="no-destinations">
          No destinations: this endpoint only captures. Add one to forward its events.
        </p>
      ) : (
        <ol className="destination-list" aria-label="Destinations, in order">
          {destinations.map((destination, index) => (
            <DestinationItem
              key={destination.id}
              endpointId={endpointId}
              destination={destination}
              first={index === 0}
              several={destinations.length > 1}
              editing={editing === destination.id}
              onEdit={() => {
                setResult(undefined);
                setEditing(destination.id);
              }}
              onCancelEdit={() => setEditing(null)}
              onRemove={() => setRemoving(destination)}
              result={result?.destinationId === destination.id ? result : undefined}
              pending={pending?.destinationId === destination.id ? pending.intent : null}
              locked={locked}
            />
          ))}
        </ol>
      )}
      {removed ? (
        <div className="destination-feedback">
          <FormSuccess message="Destination removed. Its pending deliveries were cancelled." />
        </div>
      ) : null}
      <FormError message={removeError} />
      {adding ? (
        <section className="destination-add field-box" aria-labelledby="destination-add-title" data-testid="destination-add">
          <h3 id="destination-add-title" className="subheading">
            Add a destination
          </h3>
          <DestinationForm
            endpointId={endpointId}
            intent="destinationCreate"
            idPrefix="destination-new"
            saving={pending?.intent === "destinationCreate"}
            error={createResult && !createResult.ok ? createResult.error : null}
            onCancel={() => setAdding(false)}
          />
        </section>
      ) : createResult?.ok ? (
        <FormSuccess message="Destination added: it receives the events captured from now on." />
      ) : null}
      <RemoveDestinationDialog destination={removing} busy={pending?.intent === "destinationDelete"} onClose={() => setRemoving(null)} />
    </Card>
  );
}

/** One destination: its name, state, URL and settings, and what can be done with it. */
function DestinationItem({
  endpointId,
  destination,
  first,
  several,
  editing,
  onEdit,
  onCancelEdit,
  onRemove,
  result,
  pending,
  locked,
}: {
  endpointId: string;
  destination: Destination;
  first: boolean;
  several: boolean;
  editing: boolean;
  onEdit: () => void;
  onCancelEdit: () => void;
  onRemove: () => void;
  result: DestinationResult;
  pending: string | null;
  locked: string | undefined;
}) {
  const state = destination.forwardingPaused ? "paused" : destination.enabled ? "enabled" : "disabled";
  const error = result && !result.ok && result.intent !== "destinationDelete" && result.intent !== "destinationUpdate" ? result.error : null;
  return (
    <li className={`destination is-${state}`} data-testid="destination" data-destination-id={destination.id} data-state={state}>
      <div className="destination-head">
        <div className="destination-title">
          <span className="destination-name" data-testid="destination-name">
            {destination.name}
          </span>
          <DestinationStateBadge destination={destination} />
          {first && several ? (
            <Badge tone="neutral" dot={false} title="The endpoint's destination URL: the Settings and Retries cards edit this one.">
              First
            </Badge>
          ) : null}
        </div>
        <div className="destination-actions">
          {destination.forwardingPaused ? (
            <DestinationActionForm
              intent="destinationResume"
              destinationId={destination.id}
              busy={pending === "destinationResume"}
              busyLabel="Resuming…"
              className="button primary small"
              locked={locked}
            >
              Resume
            </DestinationActionForm>
          ) : null}
          <button type="button" className="button secondary small" onClick={editing ? onCancelEdit : onEdit} disabled={locked !== undefined} title={locked} aria-expanded={editing}>
            {editing ? "Close" : "Edit"}
            <span className="sr-only"> {destination.name}</span>
          </button>
          <DestinationActionForm
            intent="destinationEnable"
            destinationId={destination.id}
            enabled={!destination.enabled}
            busy={pending === "destinationEnable"}
            busyLabel={destination.enabled ? "Disabling…" : "Enabling…"}
            className="button secondary small"
            locked={locked}
          >
            {destination.enabled ? "Disable" : "Enable"}
            <span className="sr-only"> {destination.name}</span>
          </DestinationActionForm>
          <button type="button" className="button danger-outline small" onClick={onRemove} disabled={locked !== undefined} title={locked}>
            <Icon name="trash" />
            Remove
            <span className="sr-only"> {destination.name}</span>
          </button>
        </div>
      </div>
      <p className="destination-url mono break" data-testid="destination-url">
        {destination.url}
      </p>
      {destination.forwardingPaused ? (
        <p className="destination-paused" data-testid="destination-paused">
          Paused{destination.pausedAt ? <> since <RelativeTime value={destination.pausedAt} /></> : null}
          {destination.pausedReason ? `: ${destination.pausedReason}.` : "."} Its deliveries wait until you resume it: one goes first, and the rest follow once it is delivered.
        </p>
      ) : null}
      <dl className="destination-facts">
        <div className="destination-fact is-filter">
          <dt>Filter</dt>
          <dd>
            {destination.filter === null ? (
              <span data-testid="destination-filter">All events</span>
            ) : (
              <code className="destination-filter" data-testid="destination-filter" title={filterSummary(destination.filter)}>
                {filterSummary(destination.filter)}
              </code>
            )}
          </dd>
        </div>
        <div className="destination-fact">
          <dt>Rate limit</dt>
          <dd data-testid="destination-rate">{rateLimitText(destination.rateLimitPerSecond)}</dd>
        </div>
        <div className="destination-fact">
          <dt>Order</dt>
          <dd data-testid="destination-ordered">{destination.ordered ? "In order, one at a time" : "Not ordered"}</dd>
        </div>
        <div className="destination-fact is-wide">
          <dt>Retries</dt>
          <dd>
            {retriesText(destination)}
            {/* The breaker's one count (core's words); while paused the line above says it, with the reason. */}
            {breakerLine(destination) ? <span data-testid="destination-breaker"> {breakerLine(destination)}</span> : null}
          </dd>
        </div>
      </dl>
      <FormError message={error} />
      {editing ? (
        <div className="destination-edit field-box" data-testid="destination-edit">
          <DestinationForm
            endpointId={endpointId}
            intent="destinationUpdate"
            idPrefix={`destination-${destination.id}`}
            destination={destination}
            saving={pending === "destinationUpdate"}
            error={result?.intent === "destinationUpdate" && !result.ok ? result.error : null}
            onCancel={onCancelEdit}
          />
        </div>
      ) : result?.intent === "destinationUpdate" && result.ok ? (
        <FormSuccess message="Destination saved" />
      ) : null}
    </li>
  );
}

/** The breaker's count, half-open or not, for a destination that is not paused (null: nothing to say). */
function breakerLine(destination: Destination): string | null {
  if (destination.forwardingPaused) return null;
  return breakerSummary({ pauseAfterFailures: destination.pauseAfterFailures, consecutiveFailures: destination.consecutiveFailures, paused: false });
}

/** Enabled, Disabled, or Paused (the reason on hover). */
function DestinationStateBadge({ destination }: { destination: Destination }) {
  if (destination.forwardingPaused) {
    return (
      <Badge tone="paused" data-testid="destination-state" title={destination.pausedReason ? `Paused: ${destination.pausedReason}` : "Paused"}>
        Paused
      </Badge>
    );
  }
  return destination.enabled ? (
    <Badge tone="delivered" data-testid="destination-state">
      Enabled
    </Badge>
  ) : (
    <Badge tone="neutral" data-testid="destination-state" title="Disabled: events captured while it is disabled are not sent to it.">
      Disabled
    </Badge>
  );
}

/** A one-button form acting on one destination (resume, enable or disable). */
function DestinationActionForm({
  destinationId,
  enabled,
  ...button
}: {
  intent: DestinationIntent;
  destinationId: string;
  enabled?: boolean;
  busy: boolean;
  busyLabel: string;
  className: string;
  locked?: string;
  children: ReactNode;
}) {
  const fields: Record<string, string> = enabled === undefined ? { destinationId } : { destinationId, enabled: String(enabled) };
  return <IntentButton {...button} fields={fields} preventScrollReset formClassName="destination-action" />;
}

/**
 * Adding or editing a destination: URL, name, filter (JSON, with "Test this filter"), rate
 * limit, order, and the retry policy with pausing. Read by lib/destinations.ts on the server.
 */
function DestinationForm({
  endpointId,
  intent,
  idPrefix,
  destination,
  saving,
  error,
  onCancel,
}: {
  endpointId: string;
  intent: "destinationCreate" | "destinationUpdate";
  idPrefix: string;
  destination?: Destination;
  saving: boolean;
  error: string | null;
  onCancel: () => void;
}) {
  const [filter, setFilter] = useState(() => filterText(destination?.filter ?? null));
  const filterId = `${idPrefix}-filter`;
  return (
    <Form method="post" className="form-stack destination-form" noValidate preventScrollReset data-testid="destination-form">
      <input type="hidden" name="intent" value={intent} />
      {destination ? <input type="hidden" name="destinationId" value={destination.id} /> : null}
      <div className="destination-form-pair">
        <UrlField id={`${idPrefix}-url`} label="URL" name="url" required placeholder="https://api.example.com/webhooks" defaultValue={destination?.url ?? ""} />
        <TextField
          id={`${idPrefix}-name`}
          label={
            <>
              Name<span className="optional">optional</span>
            </>
          }
          hint={destination ? "Blank keeps the current name." : "Blank: the URL's host."}
          name="name"
          maxLength={100}
          autoComplete="off"
          defaultValue={destination?.name ?? ""}
        />
      </div>
      <div className="field">
        <label htmlFor={filterId}>
          Filter<span className="optional">optional</span>
        </label>
        <textarea
          id={filterId}
          name="filter"
          className="mono destination-filter-input"
          rows={4}
          spellCheck={false}
          value={filter}
          onChange={(event) => setFilter(event.target.value)}
          placeholder='{"body.type": "invoice.paid"}'
          aria-describedby={`${filterId}-hint`}
        />
        <small id={`${filterId}-hint`} className="hint">
          Blank: every event. A JSON object in MongoDB query style over <span className="mono">method</span>, <span className="mono">path</span>,{" "}
          <span className="mono">query</span>, <span className="mono">headers</span> and <span className="mono">body</span>, e.g.{" "}
          <span className="mono">{'{"headers.X-GitHub-Event": {"$in": ["push", "release"]}}'}</span>. Operators: $eq $ne $in $nin $gt $gte $lt $lte $exists $contains
          $startsWith $endsWith, and $and $or $not. At most {MAX_FILTER_BYTES / 1024} KiB, nested 8 levels deep.
        </small>
      </div>
      <FilterTester endpointId={endpointId} filter={filter} idPrefix={idPrefix} />
      <div className="destination-form-pair">
        <TextField
          id={`${idPrefix}-rate`}
          label={
            <>
              Rate limit per second<span className="optional">optional</span>
            </>
          }
          hint={`Deliveries started per second, 1 to ${MAX_RATE_LIMIT.toLocaleString("en-US")}; blank for no limit. Events over it wait their turn.`}
          name="rateLimitPerSecond"
          inputMode="numeric"
          autoComplete="off"
          defaultValue={destination?.rateLimitPerSecond === null || destination?.rateLimitPerSecond === undefined ? "" : String(destination.rateLimitPerSecond)}
        />
        <CheckboxField
          id={`${idPrefix}-ordered`}
          label="Deliver in order"
          hint="One delivery at a time, oldest first: a failing event holds back the ones after it until it is delivered or gives up."
          name="ordered"
          defaultChecked={destination?.ordered ?? false}
          boxed
        />
      </div>
      <details className="destination-retries">
        <summary>
          Retries and pausing{" "}
          <span className="destination-retries-now">{retriesText({ retryPolicy: destination?.retryPolicy ?? null, pauseAfterFailures: destination?.pauseAfterFailures ?? null })}</span>
        </summary>
        <div className="form-stack">
          <RetryPolicyFields
            idPrefix={`${idPrefix}-retry`}
            settings={{
              retryPolicy: destination?.retryPolicy ?? null,
              pauseAfterFailures: destination?.pauseAfterFailures ?? null,
              consecutiveFailures: destination?.consecutiveFailures ?? 0,
            }}
          />
        </div>
      </details>
      <div className="form-actions">
        <SubmitButton busy={saving} busyLabel="Saving…">
          {destination ? "Save destination" : "Add destination"}
        </SubmitButton>
        <button type="button" className="button ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <FormError message={error} />
    </Form>
  );
}

/** Asks before a destination goes, saying what becomes of its deliveries. */
function RemoveDestinationDialog({ destination, busy, onClose }: { destination: Destination | null; busy: boolean; onClose: () => void }) {
  return (
    <ConfirmDialog
      open={destination !== null}
      onClose={onClose}
      title="Remove this destination?"
      description={
        destination ? (
          <>
            <p>
              “{destination.name}” (<span className="mono break">{destination.url}</span>) stops receiving this endpoint’s events.
            </p>
            <p>
              Its <strong>pending deliveries are cancelled</strong>: events still waiting to be sent or retried there are not sent. Deliveries it already
              finished stay in the events’ history.
            </p>
          </>
        ) : (
          <p />
        )
      }
    >
      <Form method="post" preventScrollReset>
        <input type="hidden" name="intent" value="destinationDelete" />
        <input type="hidden" name="destinationId" value={destination?.id ?? ""} />
        <SubmitButton busy={busy} busyLabel="Removing…" className="button danger">
          Remove destination
        </SubmitButton>
      </Form>
    </ConfirmDialog>
  );
}
