import type { DestinationView } from "@rehook/services";

/** A destination as the public API and the CLI show it (snake_case, ISO 8601 times). */
export function restDestination(view: DestinationView) {
  const { retryPolicy } = view;
  return {
    id: view.id,
    name: view.name,
    url: view.url,
    enabled: view.enabled,
    filter: view.filter,
    rate_limit_per_second: view.rateLimitPerSecond,
    ordered: view.ordered,
    retry_policy: retryPolicy && { max_attempts: retryPolicy.maxAttempts, initial_delay_ms: retryPolicy.initialDelayMs, max_delay_ms: retryPolicy.maxDelayMs },
    pause_after_failures: view.pauseAfterFailures,
    consecutive_failures: view.consecutiveFailures,
    forwarding_paused: view.forwardingPaused,
    paused_reason: view.pausedReason,
    created_at: view.createdAt.toISOString(),
  };
}

export const restDestinationList = (views: DestinationView[]) => ({ data: views.map(restDestination) });
