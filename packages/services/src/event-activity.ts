import { ACTIVITY_RANGES, activityWindow, addHistograms, LATENCY_BUCKETS, latencyPercentile, notFoundMessage, UserError, type ActivityRange } from "@rehook/core";
import { eventActivity as readEventActivity } from "@rehook/db";
import { z } from "zod";
import type { ServiceContext } from "./context.js";
import { parseInput } from "./validation.js";

/** One bucket of a chart: its start, the events captured and final outcomes in it, and its attempts' latency. */
export interface ActivityPoint {
  /** The bucket's start, epoch ms. */
  at: number;
  captured: number;
  delivered: number;
  failed: number;
  /** Median and 95th percentile of the attempts' latency (ms, from the histogram: see latencyPercentile); null without attempts. */
  p50: number | null;
  p95: number | null;
}

export interface ActivityView {
  range: ActivityRange;
  bucketMs: number;
  points: ActivityPoint[];
  /** The whole window: sums, and percentiles over all its attempts. */
  totals: Omit<ActivityPoint, "at">;
}

const activityInput = z.object({
  teamId: z.string().uuid(),
  endpointId: z.string().nullish(),
  range: z.enum(ACTIVITY_RANGES, { message: `range must be one of ${ACTIVITY_RANGES.join(", ")}` }),
});

/**
 * Events over time for the charts: captured, delivered and failed per bucket, and delivery
 * latency p50/p95, over the last hour (per minute), day (per 15 minutes) or week (per hour)
 * at the context's clock; for one of the user's endpoints, or all of them. Read from the
 * per-minute rollups. Outcomes count in the minute they happened, attempts' latency in the
 * minute they were stored; replays (to other URLs) are not delivery attempts and are left out.
 */
export async function eventActivity(
  ctx: Pick<ServiceContext, "orm" | "now">,
  input: { teamId: string; endpointId?: string | null; range: ActivityRange },
): Promise<ActivityView> {
  const { teamId, endpointId, range } = parseInput(activityInput, input);
  const window = activityWindow(range, (ctx.now ?? Date.now)());
  const buckets = await readEventActivity(ctx.orm.em.fork(), { teamId, endpointId, startMs: window.startMs, bucketMs: window.bucketMs, points: window.points });
  // Another user's endpoint answers exactly like a missing one.
  if (!buckets) throw new UserError("not_found", notFoundMessage("endpoint", endpointId!));
  const all = Array<number>(LATENCY_BUCKETS).fill(0);
  const totals = { captured: 0, delivered: 0, failed: 0 };
  const points = buckets.map((bucket, i) => {
    addHistograms(all, bucket.latencies);
    totals.captured += bucket.captured;
    totals.delivered += bucket.delivered;
    totals.failed += bucket.failed;
    return {
      at: window.startMs + i * window.bucketMs,
      captured: bucket.captured,
      delivered: bucket.delivered,
      failed: bucket.failed,
      p50: latencyPercentile(bucket.latencies, 0.5),
      p95: latencyPercentile(bucket.latencies, 0.95),
    };
  });
  return { range, bucketMs: window.bucketMs, points, totals: { ...totals, p50: latencyPercentile(all, 0.5), p95: latencyPercentile(all, 0.95) } };
}
