// Activity charts: the time windows they show and the latency histogram their percentiles
// come from. The database keeps per-minute rollups (event_minutes, latency_minutes); this
// is the arithmetic on them, shared by the server and the dashboard.

/**
 * Upper bounds (ms, exclusive) of the delivery-latency histogram's buckets: bucket i holds
 * latencies from LATENCY_BUCKET_BOUNDS_MS[i - 1] (0 for the first) up to, not including,
 * LATENCY_BUCKET_BOUNDS_MS[i]; the last bucket (index = length) holds everything from 30 s
 * up. Each bucket's upper bound is at most 2.5× its lower one (1.5–1.7× from 50 ms up), so
 * a percentile read from it is within that bucket, interpolated linearly inside it.
 * Changing the list changes what stored bucket numbers mean: append, never reorder.
 */
export const LATENCY_BUCKET_BOUNDS_MS: readonly number[] = [5, 10, 25, 50, 75, 100, 150, 250, 400, 600, 1000, 1500, 2500, 4000, 6000, 10000, 15000, 30000];

/** Buckets in the histogram (the bounds plus the open-ended last one). */
export const LATENCY_BUCKETS = LATENCY_BUCKET_BOUNDS_MS.length + 1;

/** The bucket a latency falls in: how many bounds are at or below it (PostgreSQL's width_bucket with the same array). */
export function latencyBucket(ms: number): number {
  let bucket = 0;
  while (bucket < LATENCY_BUCKET_BOUNDS_MS.length && ms >= LATENCY_BUCKET_BOUNDS_MS[bucket]!) bucket += 1;
  return bucket;
}

/**
 * The p-quantile (0 < p ≤ 1) of the latencies a histogram counts (counts[i]: attempts in
 * bucket i), assuming they spread evenly within their bucket; null when it counts none.
 * The open-ended last bucket answers its lower bound (30 000 ms): "30 s or more".
 */
export function latencyPercentile(counts: readonly number[], p: number): number | null {
  const total = counts.reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const rank = Math.min(Math.max(p, 0), 1) * total;
  let below = 0;
  for (let bucket = 0; bucket < counts.length; bucket += 1) {
    const n = counts[bucket] ?? 0;
    if (n === 0 || below + n < rank) {
      below += n;
      continue;
    }
    const lower = bucket === 0 ? 0 : LATENCY_BUCKET_BOUNDS_MS[bucket - 1]!;
    const upper = LATENCY_BUCKET_BOUNDS_MS[bucket];
    if (upper === undefined) return lower;
    return Math.round(lower + ((rank - below) / n) * (upper - lower));
  }
  return LATENCY_BUCKET_BOUNDS_MS[LATENCY_BUCKET_BOUNDS_MS.length - 1]!;
}

/** Histograms added bucket by bucket. */
export function addHistograms(into: number[], from: readonly number[]): number[] {
  for (let bucket = 0; bucket < from.length; bucket += 1) into[bucket] = (into[bucket] ?? 0) + (from[bucket] ?? 0);
  return into;
}

export const ACTIVITY_RANGES = ["hour", "day", "week"] as const;
export type ActivityRange = (typeof ACTIVITY_RANGES)[number];

export function isActivityRange(value: unknown): value is ActivityRange {
  return typeof value === "string" && (ACTIVITY_RANGES as readonly string[]).includes(value);
}

const MINUTE_MS = 60_000;

/** Each range's bucket size and number of buckets. */
export const ACTIVITY_BUCKETS: Record<ActivityRange, { bucketMs: number; points: number }> = {
  hour: { bucketMs: MINUTE_MS, points: 60 },
  day: { bucketMs: 15 * MINUTE_MS, points: 96 },
  week: { bucketMs: 60 * MINUTE_MS, points: 168 },
};

/** Words for a bucket size ("per minute") and a range ("over the last hour"). */
export const ACTIVITY_RANGE_WORDS: Record<ActivityRange, { per: string; over: string; label: string }> = {
  hour: { per: "per minute", over: "over the last hour", label: "Hour" },
  day: { per: "per 15 minutes", over: "over the last day", label: "Day" },
  week: { per: "per hour", over: "over the last week", label: "Week" },
};

export interface ActivityWindow {
  range: ActivityRange;
  /** The first bucket's start (epoch ms, a multiple of bucketMs). */
  startMs: number;
  /** The end of the last bucket, the one now is in (exclusive). */
  endMs: number;
  bucketMs: number;
  points: number;
}

/**
 * The buckets a range shows at `now`: aligned to multiples of the bucket size since the
 * epoch (whole minutes, quarter hours, hours in UTC), the last one the bucket now is in.
 */
export function activityWindow(range: ActivityRange, now: number): ActivityWindow {
  const { bucketMs, points } = ACTIVITY_BUCKETS[range];
  const endMs = (Math.floor(now / bucketMs) + 1) * bucketMs;
  return { range, startMs: endMs - points * bucketMs, endMs, bucketMs, points };
}
