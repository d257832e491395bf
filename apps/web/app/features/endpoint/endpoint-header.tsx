import { Link } from "@remix-run/react";
import { HealthBadge } from "../../components/badges";
import { PausedBadge, PausedBanner } from "../../components/delivery";
import { RelativeTime } from "../../components/relative-time";
import { Breadcrumb, FormError, FormSuccess, Icon, PageHeader } from "../../components/ui";
import { deliveryCounts } from "../../lib/format";
import type { EndpointPageData } from "./endpoint-data.server";

type ResumeResult = { ok: true; error: null } | { ok: false; error: string } | undefined;

/** The endpoint's name, health and counts; under it, whether forwarding is paused (and Resume's outcome). */
export function EndpointHeader({
  endpoint,
  activityHref,
  resuming,
  resumeResult,
  resumeLocked,
}: {
  endpoint: EndpointPageData["endpoint"];
  activityHref: string;
  resuming: boolean;
  resumeResult: ResumeResult;
  /** Why the role may not resume forwarding. */
  resumeLocked: string | undefined;
}) {
  return (
    <>
      <PageHeader
        eyebrow={<Breadcrumb parent="Endpoints" to="/" current={endpoint.name} />}
        title={endpoint.name}
        description={
          <span className="header-meta">
            <HealthBadge state={endpoint.health.state} rate={endpoint.health.successRate} captureOnly={!endpoint.destinationUrl} />
            {endpoint.forwardingPaused ? <PausedBadge reason={endpoint.pausedReason} /> : null}
            <span>{deliveryCounts(endpoint)}</span>
            <span>
              Created <RelativeTime value={endpoint.createdAt} />
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
        <PausedBanner reason={endpoint.pausedReason} pausedAt={endpoint.pausedAt} resuming={resuming} locked={resumeLocked} />
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
    </>
  );
}
