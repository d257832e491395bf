import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { isActivityRange, type ActivityRange } from "@rehook/core/browser";
import { EndpointActivityCharts, RangeControl } from "../components/activity-charts";
import { useEffect, useState } from "react";
import { HealthBadge, StatusBadge } from "../components/badges";
import { BulkReplayCard } from "../components/bulk-replay";
import { ConfirmDialog } from "../components/confirm-dialog";
import { PausedBadge, PausedBanner, RetrySettingsForm } from "../components/delivery";
import { RelativeTime } from "../components/relative-time";
import { CheckboxField, IntentButton, SaveActions, TextField, UrlField } from "../components/form-fields";
import { HandshakeSettingsForm, ResponseSettingsForm, VerificationSettingsForm, type SectionState } from "../components/ingress-settings";
import { Breadcrumb, Card, CopyField, Detail, FormError, FormSuccess, Icon, PageHeader, RouteError, TestEventSnippet } from "../components/ui";
import { errorMessage, throwIfNotFound } from "../lib/errors";
import { deliveryCounts, formatLatency, keptForText, plural } from "../lib/format";
import { readHandshakeForm, readResponseForm, readVerificationForm } from "../lib/ingress";
import { readRetryForm } from "../lib/retries";
import { noticeCookie } from "../lib/notice.server";
import { requireUser } from "../lib/session.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data ? `${data.endpoint.name} · Rehook` : "Endpoint · Rehook" }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  requireUser(context, request);
  const id = params.id ?? "";
  const range = chartRange(request);
  try {
    const [endpoint, recent, activity] = await Promise.all([
      context.caller.endpoints.get({ id }),
      context.caller.events.list({ endpointId: id, limit: 5 }).catch(() => ({ events: [], nextCursor: null })),
      // The charts are not worth failing the page for: without them the card says so.
      context.caller.endpoints.activity({ id, range }).catch(() => null),
    ]);
    return { endpoint, recent: recent.events, more: recent.nextCursor !== null, range, activity };
  } catch (error) {
    throwIfNotFound(error);
    throw error;
  }
}

/** The charts' range from ?range= (a day unless it names another). */
function chartRange(request: Request): ActivityRange {
  const value = new URL(request.url).searchParams.get("range");
  return isActivityRange(value) ? value : "day";
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  requireUser(context, request);
  const id = params.id ?? "";
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "update");
  if (intent === "delete") {
    let name: string;
    try {
      name = (await context.caller.endpoints.get({ id })).name;
      await context.caller.endpoints.delete({ id });
    } catch (error) {
      throwIfNotFound(error);
      return { intent: "delete" as const, ok: false as const, error: errorMessage(error) };
    }
    const notice = `Endpoint “${name}” was deleted. Its capture URL no longer accepts requests, and its events are being removed.`;
    return redirect("/", { status: 303, headers: { "Set-Cookie": noticeCookie(notice) } });
  }
  if (intent === "resume") {
    try {
      await context.caller.endpoints.resume({ id });
      return { intent: "resume" as const, ok: true as const, error: null };
    } catch (error) {
      throwIfNotFound(error);
      return { intent: "resume" as const, ok: false as const, error: errorMessage(error) };
    }
  }
  if (intent === "retryFailed") {
    try {
      const { count } = await context.caller.endpoints.retryFailed({ id });
      return { intent: "retryFailed" as const, ok: true as const, error: null, count, at: Date.now() };
    } catch (error) {
      throwIfNotFound(error);
      return { intent: "retryFailed" as const, ok: false as const, error: errorMessage(error) };
    }
  }
  if (intent === "retries") {
    const read = readRetryForm(form);
    if (!read.ok) return { intent: "retries" as const, ok: false as const, error: read.error };
    try {
      await context.caller.endpoints.update({ id, retryPolicy: read.retryPolicy, pauseAfterFailures: read.pauseAfterFailures });
      return { intent: "retries" as const, ok: true as const, error: null, savedAt: Date.now() };
    } catch (error) {
      throwIfNotFound(error);
      return { intent: "retries" as const, ok: false as const, error: errorMessage(error) };
    }
  }
  if (intent === "response" || intent === "responseReset" || intent === "handshake" || intent === "verification") {
    return saveIngress(context, id, intent, form);
  }
  // Blank: the server's default. Anything else goes to the use case, which says what is wrong with it.
  const retentionDaysField = (value: FormDataEntryValue | null) => {
    const text = String(value ?? "").trim();
    return text === "" ? null : Number(text);
  };
  const blankToNull = (value: FormDataEntryValue | null) => {
    const text = String(value ?? "").trim();
    return text === "" ? null : text;
  };
  try {
    await context.caller.endpoints.update({
      id,
      name: String(form.get("name") ?? ""),
      destinationUrl: blankToNull(form.get("destinationUrl")),
      stagingHost: blankToNull(form.get("stagingHost")),
      signRequests: form.get("signRequests") !== null,
      keepProxyHeaders: form.get("keepProxyHeaders") !== null,
      retentionDays: retentionDaysField(form.get("retentionDays")),
    });
    return { intent: "update" as const, ok: true as const, error: null, savedAt: Date.now() };
  } catch (error) {
    throwIfNotFound(error);
    return { intent: "update" as const, ok: false as const, error: errorMessage(error) };
  }
}

type IngressIntent = "response" | "responseReset" | "handshake" | "verification";

/** One ingress section's form saved on its own: only its field of the endpoint is sent. */
async function saveIngress(context: ActionFunctionArgs["context"], id: string, intent: IngressIntent, form: FormData) {
  const read =
    intent === "responseReset"
      ? { ok: true as const, change: { response: null } }
      : intent === "response"
        ? withField("response", readResponseForm(form))
        : intent === "handshake"
          ? withField("handshake", readHandshakeForm(form))
          : withField("verification", readVerificationForm(form));
  if (!read.ok) return { intent, ok: false as const, error: read.error };
  try {
    await context.caller.endpoints.update({ id, ...read.change });
    return { intent, ok: true as const, error: null, savedAt: Date.now() };
  } catch (error) {
    throwIfNotFound(error);
    return { intent, ok: false as const, error: errorMessage(error) };
  }
}

/** A form's change as the update's named field. */
function withField<Field extends string, Change>(field: Field, read: { ok: true; change: Change } | { ok: false; error: string }) {
  return read.ok ? { ok: true as const, change: { [field]: read.change } as Record<Field, Change> } : read;
}

/** The confirmation each ingress intent shows once saved. */
const INGRESS_SAVED: Record<IngressIntent, string> = {
  response: "Response saved",
  responseReset: "Back to the default answer",
  handshake: "Handshake saved",
  verification: "Verification saved",
};

/** What an ingress section shows: whether its intent is being sent, and the last result of its intents. */
function sectionState(result: { intent: string; ok: boolean; error: string | null } | undefined, pendingIntent: string | null, intents: IngressIntent[]): SectionState {
  const mine = result && (intents as string[]).includes(result.intent) ? result : undefined;
  return {
    saving: pendingIntent === intents[0],
    saved: mine?.ok ? INGRESS_SAVED[mine.intent as IngressIntent] : null,
    error: mine && !mine.ok ? mine.error : null,
  };
}

/** A key that changes when a section's stored value does, or it is saved again: its form then starts from what is stored. */
function sectionKey(stored: unknown, result: { intent: string; ok: boolean } | undefined, intents: IngressIntent[]) {
  const savedAt = result?.ok && (intents as string[]).includes(result.intent) && "savedAt" in result ? String(result.savedAt) : "";
  return `${JSON.stringify(stored)}\u0000${savedAt}`;
}

export default function EndpointPage() {
  const { endpoint, recent, more, range, activity } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const [confirming, setConfirming] = useState(false);
  const [confirmingRetry, setConfirmingRetry] = useState(false);
  const pendingIntent = navigation.state === "submitting" ? String(navigation.formData?.get("intent") ?? "") : null;
  const saving = pendingIntent === "update";
  const deleting = pendingIntent === "delete";
  const updateResult = result?.intent === "update" ? result : undefined;
  const deleteError = result?.intent === "delete" ? result.error : undefined;
  const retriesResult = result?.intent === "retries" ? result : undefined;
  const resumeResult = result?.intent === "resume" ? result : undefined;
  const retryFailedResult = result?.intent === "retryFailed" ? result : undefined;
  const retryingFailed = pendingIntent === "retryFailed";
  // The dialog closes once the retry has been asked for (the count shows on the page).
  useEffect(() => {
    if (retryFailedResult) setConfirmingRetry(false);
  }, [retryFailedResult]);
  // A new key after a save shows the stored (normalised) values; an error keeps what was typed.
  useEffect(() => {
    if (deleteError) setConfirming(false);
  }, [deleteError, result]);
  const savedAt = updateResult?.ok ? updateResult.savedAt : 0;
  // Activity filtered to this endpoint.
  const activityHref = `/events?endpointId=${encodeURIComponent(endpoint.id)}`;
  const retryKey = [JSON.stringify(endpoint.retryPolicy), endpoint.pauseAfterFailures ?? "", retriesResult?.ok ? retriesResult.savedAt : 0].join("\u0000");
  const formKey = [endpoint.name, endpoint.destination_url, endpoint.staging_host, endpoint.sign_requests, endpoint.keep_proxy_headers, savedAt].join("\u0000");

  return (
    <>
      <PageHeader
        eyebrow={<Breadcrumb parent="Endpoints" to="/" current={endpoint.name} />}
        title={endpoint.name}
        description={
          <span className="header-meta">
            <HealthBadge state={endpoint.health.state} rate={endpoint.health.success_rate} captureOnly={!endpoint.destination_url} />
            {endpoint.forwardingPaused ? <PausedBadge reason={endpoint.pausedReason} /> : null}
            <span>{deliveryCounts(endpoint)}</span>
            <span>
              Created <RelativeTime value={endpoint.created_at} />
            </span>
          </span>
        }
        actions={
          <Link to={activityHref} className="button secondary">
            <Icon name="activity" />
            View activity
          </Link>
        }
      />

      {endpoint.forwardingPaused ? (
        <PausedBanner reason={endpoint.pausedReason} pausedAt={endpoint.pausedAt} resuming={pendingIntent === "resume"} />
      ) : resumeResult?.ok ? (
        <div className="banner-slot">
          <FormSuccess message="Forwarding resumed: events that waited are being sent now." />
        </div>
      ) : null}
      {resumeResult && !resumeResult.ok ? (
        <div className="banner-slot">
          <FormError message={resumeResult.error} />
        </div>
      ) : null}

      <div className="grid-2">
        <Card
          title="Capture URL"
          description={
            endpoint.destination_url ? (
              <>Requests sent here are stored and forwarded to your destination.</>
            ) : (
              <>Requests sent here are stored so you can inspect them. Add a destination URL to forward them.</>
            )
          }
        >
          <CopyField value={endpoint.webhook_url} testId="capture-url" />
          <dl className="kv compact">
            <Detail term="Forwards to">
              {endpoint.destination_url ? <span className="mono break">{endpoint.destination_url}</span> : <span className="muted">Capture only</span>}
            </Detail>
            <Detail term="Accepts" className="muted">
              Any method, and any path below the URL (…/{endpoint.slug}/orders/42 too)
            </Detail>
            <Detail term="Events" className="muted">
              <span data-testid="kept-for">{keptForText(endpoint.keptForDays)}</span>
            </Detail>
          </dl>
        </Card>

        <Card title="Send a test event" description="Run this in a terminal, then watch the event arrive in Activity.">
          <TestEventSnippet webhookUrl={endpoint.webhook_url} />
        </Card>
      </div>

      <Card
        title="Activity"
        id="activity"
        className="activity-card"
        description="Events captured and delivery outcomes over time, and how long the destination took to answer."
        actions={<RangeControl current={range} hrefFor={(choice) => `?range=${choice}`} />}
      >
        {activity ? (
          <EndpointActivityCharts series={activity} forwards={endpoint.destination_url !== null} />
        ) : (
          <p className="muted">The charts could not be loaded. Reload the page to try again.</p>
        )}
      </Card>

      <Card
        title="Recent events"
        actions={
          <Link to={activityHref} className="text-link">
            All events <Icon name="arrow-right" />
          </Link>
        }
      >
        {recent.length === 0 ? (
          <p className="muted">No events yet. Send the test event above and it will show up here and in Activity.</p>
        ) : (
          <ul className="mini-feed">
            {recent.map((event) => (
              <li key={event.id}>
                <Link to={`/events/${event.id}`} className="mini-feed-link">
                  <StatusBadge status={event.status} />
                  <span className="mini-feed-type">{event.eventType || "—"}</span>
                  <span className="muted mini-feed-source">{event.source}</span>
                  <span className="muted mini-feed-latency">{formatLatency(event.latencyMs)}</span>
                  <RelativeTime value={event.receivedAt} className="muted mini-feed-time" />
                </Link>
              </li>
            ))}
          </ul>
        )}
        {more ? <p className="muted small">Showing the 5 newest.</p> : null}
      </Card>

      <BulkReplayCard endpointId={endpoint.id} destinationUrl={endpoint.destination_url} />

      <Card title="Settings" description="Changes apply to events captured from now on; stored events keep the destination they were captured for.">
        <Form method="post" className="form-stack" key={formKey} noValidate>
          <input type="hidden" name="intent" value="update" />
          <TextField id="settings-name" label="Name" name="name" required maxLength={100} autoComplete="off" defaultValue={endpoint.name} />
          <UrlField
            id="settings-destination"
            label="Destination URL"
            hint="Leave blank to capture only."
            name="destinationUrl"
            placeholder="https://api.example.com/webhooks"
            defaultValue={endpoint.destination_url ?? ""}
          />
          <TextField
            id="settings-staging"
            label="Staging hostname"
            hint="Used by staging replays, e.g. staging.example.com (host only, no https://)."
            name="stagingHost"
            spellCheck={false}
            autoComplete="off"
            placeholder="staging.example.com"
            defaultValue={endpoint.staging_host ?? ""}
          />
          <CheckboxField
            id="settings-sign"
            label="Sign forwarded requests"
            hint={
              <>
                Adds Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) signed with the endpoint secret. A valid signature
                proves that Rehook forwarded this exact request, not who originally sent it.
              </>
            }
            name="signRequests"
            defaultChecked={endpoint.sign_requests}
          />
          <CheckboxField
            id="settings-proxy-headers"
            label="Keep proxy headers"
            hint="Forward and replay the sender's X-Forwarded-*, Forwarded and X-Real-IP headers. Off by default: anyone can write them."
            name="keepProxyHeaders"
            defaultChecked={endpoint.keep_proxy_headers}
          />
          <TextField
            id="settings-retention"
            label="Keep events for (days)"
            hint={`${keptForText(endpoint.keptForDays)}. Blank: the server's default; 0: for ever. Older events are deleted in the background.`}
            name="retentionDays"
            inputMode="numeric"
            autoComplete="off"
            placeholder="server default"
            defaultValue={endpoint.retentionDays === null ? "" : String(endpoint.retentionDays)}
          />
          <SaveActions
            label="Save changes"
            saving={saving}
            saved={updateResult?.ok ? "Saved" : null}
            error={updateResult && !updateResult.ok ? updateResult.error : null}
          />
        </Form>
      </Card>

      <Card
        title="Response to senders"
        id="response"
        description="What the capture URL answers each request it stores. Some senders expect a particular status or body back."
      >
        <ResponseSettingsForm
          key={sectionKey(endpoint.response, result, ["response", "responseReset"])}
          response={endpoint.response}
          state={sectionState(result, pendingIntent, ["response", "responseReset"])}
          resetting={pendingIntent === "responseReset"}
        />
      </Card>

      <Card
        title="Provider handshake"
        id="handshake"
        description="Some providers check a URL before they send it events, by a challenge it must answer. Rehook answers it for you."
      >
        <HandshakeSettingsForm key={sectionKey(endpoint.handshake, result, ["handshake"])} handshake={endpoint.handshake} state={sectionState(result, pendingIntent, ["handshake"])} />
      </Card>

      <Card
        title="Signature verification"
        id="verification"
        description="Check that each request was signed by its sender with your shared secret. The secret is never shown again once saved."
      >
        <VerificationSettingsForm
          key={sectionKey(endpoint.verification, result, ["verification"])}
          verification={endpoint.verification}
          state={sectionState(result, pendingIntent, ["verification"])}
        />
      </Card>

      <Card
        title="Retries"
        id="retries"
        description="When the destination fails (no answer, or an answer that is not 2xx), Rehook tries the event again later, waiting longer each time."
      >
        <RetrySettingsForm
          key={retryKey}
          settings={{ retryPolicy: endpoint.retryPolicy, pauseAfterFailures: endpoint.pauseAfterFailures, consecutiveFailures: endpoint.consecutiveFailures }}
          hasDestination={endpoint.destination_url !== null}
          saving={pendingIntent === "retries"}
          saved={!!retriesResult?.ok}
          error={retriesResult && !retriesResult.ok ? retriesResult.error : null}
        />
        <div className="recovery-row">
          <div>
            <p className="danger-title">Retry failed events</p>
            <p className="muted small">Gives every failed event of this endpoint one more attempt, to its destination.</p>
          </div>
          <button type="button" className="button secondary" onClick={() => setConfirmingRetry(true)} disabled={endpoint.destination_url === null}>
            <Icon name="refresh" />
            Retry failed events
          </button>
        </div>
        {retryFailedResult?.ok ? (
          <div className="recovery-result" data-testid="retry-failed-result">
            <FormSuccess
              message={
                retryFailedResult.count === 0
                  ? "There were no failed events to retry."
                  : endpoint.forwardingPaused
                    ? `${plural(retryFailedResult.count, "failed event")} queued for another attempt. Forwarding is paused: they are sent once you resume it.`
                    : `${plural(retryFailedResult.count, "failed event")} queued for another attempt. They show as pending in Activity until they are sent.`
              }
            />
          </div>
        ) : null}
        {retryFailedResult && !retryFailedResult.ok ? (
          <div className="recovery-result">
            <FormError message={retryFailedResult.error} />
          </div>
        ) : null}
      </Card>

      <Card title="Danger zone" className="danger-zone">
        <div className="danger-row">
          <div>
            <p className="danger-title">Delete this endpoint</p>
            <p className="muted small">The capture URL stops working and every event captured on it is deleted.</p>
          </div>
          <button type="button" className="button danger-outline" onClick={() => setConfirming(true)}>
            <Icon name="trash" />
            Delete endpoint
          </button>
        </div>
        <FormError message={deleteError} />
      </Card>

      <ConfirmDialog
        open={confirming}
        onClose={() => setConfirming(false)}
        title={`Delete “${endpoint.name}”?`}
        description={
          <p>
            Deletion is permanent: it removes the endpoint and all its events. Its capture URL will answer 404 from then on. This cannot be undone.
          </p>
        }
      >
        <IntentButton intent="delete" className="button danger" busy={deleting} busyLabel="Deleting…">
          Delete permanently
        </IntentButton>
      </ConfirmDialog>

      <ConfirmDialog
        open={confirmingRetry}
        onClose={() => setConfirmingRetry(false)}
        tone="default"
        title="Retry failed events?"
        description={
          <p>
            Every event of “{endpoint.name}” whose delivery failed goes back to pending and is sent again to{" "}
            <span className="mono break">{endpoint.destination_url ?? "its destination"}</span> once more (one new attempt each). Your destination may receive
            requests it has already answered.
          </p>
        }
      >
        <IntentButton intent="retryFailed" className="button primary" busy={retryingFailed} busyLabel="Retrying…" preventScrollReset>
          Retry failed events
        </IntentButton>
      </ConfirmDialog>
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}
