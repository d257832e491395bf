import { useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { BulkReplayCard } from "../../components/bulk-replay";
import { RoleLock, RoleNote } from "../../components/role-gate";
import { useTeam } from "../../components/use-team";
import { whyNot } from "../../lib/roles";
import { CaptureCards } from "./capture-cards";
import { DangerZone, DeleteEndpointDialog } from "./danger-zone";
import { DestinationsCard, type DestinationResult } from "./destinations-card";
import type { endpointAction } from "./endpoint-action.server";
import { ActivityCard, RecentEventsCard } from "./endpoint-activity";
import type { loadEndpointPage } from "./endpoint-data.server";
import { EndpointHeader } from "./endpoint-header";
import { IngressSections } from "./ingress-sections";
import { RetriesCard, RetryFailedDialog } from "./retries-card";
import { SettingsCard } from "./settings-card";
import { useRefreshAfterResume } from "./use-refresh-after-resume";
import "./endpoint-page.css";

/** One endpoint: its capture URL, activity, destinations, settings, ingress, retries and deletion. */
export function EndpointPage() {
  const { endpoint, destinations, recent, more, range, activity } = useLoaderData<typeof loadEndpointPage>();
  const result = useActionData<typeof endpointAction>();
  const navigation = useNavigation();
  const [confirming, setConfirming] = useState(false);
  const [confirmingRetry, setConfirmingRetry] = useState(false);
  const pendingIntent = navigation.state === "submitting" ? String(navigation.formData?.get("intent") ?? "") : null;
  const updateResult = result?.intent === "update" ? result : undefined;
  const deleteError = result?.intent === "delete" ? result.error : undefined;
  const retriesResult = result?.intent === "retries" ? result : undefined;
  const destinationResult = result && result.intent.startsWith("destination") ? (result as DestinationResult) : undefined;
  const pendingDestination = pendingIntent?.startsWith("destination") ? { intent: pendingIntent, destinationId: String(navigation.formData?.get("destinationId") ?? "") } : null;
  // Kept once known (for this endpoint): the reloads that follow Resume (below) end the action's data.
  const [resumed, setResumed] = useState<{ endpointId: string; result: Extract<typeof result, { intent: "resume" }> } | null>(null);
  useEffect(() => {
    if (result?.intent === "resume") setResumed({ endpointId: endpoint.id, result });
    // The endpoint's id is the one the form was posted on.
  }, [result]);
  const resumeResult = resumed?.endpointId === endpoint.id ? resumed.result : result?.intent === "resume" ? result : undefined;
  useRefreshAfterResume(endpoint.id, resumeResult?.ok === true);
  const retryFailedResult = result?.intent === "retryFailed" ? result : undefined;
  // The dialog closes once the retry has been asked for (the count shows on the page).
  useEffect(() => {
    if (retryFailedResult) setConfirmingRetry(false);
  }, [retryFailedResult]);
  useEffect(() => {
    if (deleteError) setConfirming(false);
  }, [deleteError, result]);
  // Activity filtered to this endpoint.
  const activityHref = `/events?endpointId=${encodeURIComponent(endpoint.id)}`;
  const { role } = useTeam();
  const readOnly = whyNot(role, "developer", "Changing this endpoint, replaying and retrying");

  return (
    <>
      <EndpointHeader
        endpoint={endpoint}
        activityHref={activityHref}
        resuming={pendingIntent === "resume"}
        resumeResult={resumeResult}
        resumeLocked={whyNot(role, "developer")}
      />
      {readOnly ? <RoleNote>{readOnly} You can read everything on this page.</RoleNote> : null}
      <CaptureCards endpoint={endpoint} />
      <ActivityCard endpoint={endpoint} range={range} activity={activity} />
      <RecentEventsCard recent={recent} more={more} activityHref={activityHref} />
      <DestinationsCard endpointId={endpoint.id} destinations={destinations} result={destinationResult} pending={pendingDestination} />
      <RoleLock needed="developer">
        <BulkReplayCard endpointId={endpoint.id} destinations={destinations.map(({ id, name, url }) => ({ id, name, url }))} />
        <SettingsCard endpoint={endpoint} saving={pendingIntent === "update"} result={updateResult} />
        <IngressSections endpoint={endpoint} result={result} pendingIntent={pendingIntent} />
        <RetriesCard
          endpoint={endpoint}
          saving={pendingIntent === "retries"}
          result={retriesResult}
          retryFailedResult={retryFailedResult}
          onRetryFailed={() => setConfirmingRetry(true)}
        />
      </RoleLock>
      <DangerZone error={deleteError} locked={whyNot(role, "admin")} onDelete={() => setConfirming(true)} />
      <DeleteEndpointDialog name={endpoint.name} open={confirming} busy={pendingIntent === "delete"} onClose={() => setConfirming(false)} />
      <RetryFailedDialog endpoint={endpoint} open={confirmingRetry} busy={pendingIntent === "retryFailed"} onClose={() => setConfirmingRetry(false)} />
    </>
  );
}
