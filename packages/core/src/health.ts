export type HealthState = "healthy" | "degraded" | "unhealthy" | "capturing";

export interface EndpointHealth {
  state: HealthState;
  /** delivered / (delivered + failed), 0..1; null while nothing was delivered or failed. */
  successRate: number | null;
}

/**
 * Health from the terminal outcomes only (captured and pending do not count):
 * >= 90% healthy, 50% to below 90% degraded, below 50% unhealthy, none yet capturing.
 * Compared in whole numbers, so 9/10 is exactly 90% with no floating-point doubt.
 */
export function endpointHealth(delivered: number, failed: number): EndpointHealth {
  const total = delivered + failed;
  if (total === 0) return { state: "capturing", successRate: null };
  const successRate = delivered / total;
  if (delivered * 10 >= total * 9) return { state: "healthy", successRate };
  if (delivered * 2 >= total) return { state: "degraded", successRate };
  return { state: "unhealthy", successRate };
}
