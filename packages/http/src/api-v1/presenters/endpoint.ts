import type { EndpointListItem, EndpointView } from "@rehook/services";

/*
 * An endpoint in the wire spelling the public API and the CLI share: snake_case names, ISO
 * 8601 times. Each field is named here, so a field added to the domain view is never on the
 * wire until it is added below (and, for the public API, to PUBLIC_ENDPOINT_FIELDS).
 */

/** Every field of an endpoint, in the wire spelling and order: what `rehook endpoint create|update` prints. */
export function wireEndpoint(view: EndpointView) {
  const { retryPolicy, response, handshake, verification } = view;
  return {
    id: view.id,
    name: view.name,
    slug: view.slug,
    webhook_url: view.webhookUrl,
    destination_url: view.destinationUrl,
    health: { state: view.health.state, success_rate: view.health.successRate },
    delivered_count: view.deliveredCount,
    failed_count: view.failedCount,
    staging_host: view.stagingHost,
    sign_requests: view.signRequests,
    keep_proxy_headers: view.keepProxyHeaders,
    retry_policy: retryPolicy && { max_attempts: retryPolicy.maxAttempts, initial_delay_ms: retryPolicy.initialDelayMs, max_delay_ms: retryPolicy.maxDelayMs },
    pause_after_failures: view.pauseAfterFailures,
    consecutive_failures: view.consecutiveFailures,
    forwarding_paused: view.forwardingPaused,
    paused_reason: view.pausedReason,
    paused_at: view.pausedAt?.toISOString() ?? null,
    retention_days: view.retentionDays,
    kept_for_days: view.keptForDays,
    response: response && { status: response.status, headers: response.headers, body: response.body, delay_ms: response.delayMs },
    handshake: handshake && { provider: handshake.provider, token: handshake.token },
    verification: verification && {
      scheme: verification.scheme,
      reject_invalid: verification.rejectInvalid,
      secret: verification.secret,
      // The hmac-sha256 scheme's own settings: absent, not null, for the other schemes.
      ...(verification.header !== undefined ? { header: verification.header } : {}),
      ...(verification.encoding !== undefined ? { encoding: verification.encoding } : {}),
      ...(verification.prefix !== undefined ? { prefix: verification.prefix } : {}),
    },
    dedup: view.dedup,
    created_at: view.createdAt.toISOString(),
  };
}

export type WireEndpoint = ReturnType<typeof wireEndpoint>;

/** The endpoint fields the public API shows: a list, so a field added to the wire record stays private until named here. */
export const PUBLIC_ENDPOINT_FIELDS = [
  "id",
  "name",
  "slug",
  "webhook_url",
  "destination_url",
  "health",
  "keep_proxy_headers",
  "retry_policy",
  "pause_after_failures",
  "forwarding_paused",
  "paused_reason",
  "paused_at",
  "retention_days",
  "kept_for_days",
  "response",
  "handshake",
  "verification",
  "dedup",
  "created_at",
] as const satisfies ReadonlyArray<keyof WireEndpoint>;

export type RestEndpoint = Pick<WireEndpoint, (typeof PUBLIC_ENDPOINT_FIELDS)[number]>;

/** An endpoint as GET /api/v1/endpoints/{id} (and create, update, resume) answers it. */
export function restEndpoint(view: EndpointView): RestEndpoint {
  const wire = wireEndpoint(view);
  return Object.fromEntries(PUBLIC_ENDPOINT_FIELDS.map((field) => [field, wire[field]])) as RestEndpoint;
}

/** A listed endpoint: the public fields, its event total and its newest event's time. */
export function restEndpointListItem(item: EndpointListItem) {
  return { ...restEndpoint(item), event_count: item.eventCount, last_event_at: item.lastEventAt?.toISOString() ?? null };
}

/** Failed events made due again, as POST /endpoints/{id}/retry-failed answers it. */
export function restRetryFailed(result: { count: number; forwardingPaused: boolean; message: string }) {
  return { count: result.count, forwarding_paused: result.forwardingPaused, message: result.message };
}

/** A page of endpoints with the paging the request asked for. */
export function restEndpointList(page: { endpoints: EndpointListItem[]; total: number }, input: { limit?: unknown; offset?: unknown }) {
  return { data: page.endpoints.map(restEndpointListItem), meta: { total: page.total, limit: input.limit, offset: input.offset } };
}
