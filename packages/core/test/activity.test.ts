import { describe, expect, it } from "vitest";
import { activityWindow, addHistograms, LATENCY_BUCKET_BOUNDS_MS, LATENCY_BUCKETS, latencyBucket, latencyPercentile } from "../src/index.js";

/** A histogram with these latencies counted. */
function histogram(latencies: number[]): number[] {
  const counts = Array<number>(LATENCY_BUCKETS).fill(0);
  for (const ms of latencies) counts[latencyBucket(ms)]! += 1;
  return counts;
}

describe("latency buckets", () => {
  it.each([
    [0, 0],
    [4, 0],
    [5, 1], // a bound belongs to the bucket above it, as width_bucket puts it
    [9, 1],
    [120, 6],
    [999, 10],
    [1000, 11],
    [29_999, 17],
    [30_000, 18],
    [600_000, 18],
  ])("%i ms is in bucket %i", (ms, bucket) => {
    expect(latencyBucket(ms)).toBe(bucket);
  });

  it("has one open-ended bucket after the bounds, which only grow", () => {
    expect(LATENCY_BUCKETS).toBe(LATENCY_BUCKET_BOUNDS_MS.length + 1);
    expect([...LATENCY_BUCKET_BOUNDS_MS].sort((a, b) => a - b)).toEqual(LATENCY_BUCKET_BOUNDS_MS);
  });
});

describe("latency percentiles from the histogram", () => {
  it("is null without attempts", () => {
    expect(latencyPercentile(histogram([]), 0.5)).toBeNull();
  });

  it("interpolates within the bucket the rank falls in", () => {
    // 100 attempts evenly in 100–150 ms: the median is half-way through the bucket.
    const counts = histogram(Array.from({ length: 100 }, (_, i) => 100 + i / 2));
    expect(latencyPercentile(counts, 0.5)).toBe(125);
    expect(latencyPercentile(counts, 0.95)).toBe(148);
  });

  it("stays within the bucket of the true percentile", () => {
    // 90 fast attempts (20 ms) and 10 slow ones (2 s): p50 is fast, p95 slow.
    const counts = histogram([...Array<number>(90).fill(20), ...Array<number>(10).fill(2_000)]);
    const p50 = latencyPercentile(counts, 0.5)!;
    const p95 = latencyPercentile(counts, 0.95)!;
    expect(p50).toBeGreaterThanOrEqual(10);
    expect(p50).toBeLessThan(25);
    expect(p95).toBeGreaterThanOrEqual(1_500);
    expect(p95).toBeLessThan(2_500);
  });

  it("answers 30 s for latencies in the open-ended bucket", () => {
    expect(latencyPercentile(histogram([45_000, 60_000]), 0.95)).toBe(30_000);
  });

  it("adds histograms bucket by bucket", () => {
    expect(addHistograms(histogram([1, 200]), histogram([2, 7]))).toEqual(histogram([1, 2, 7, 200]));
  });
});

describe("activity windows", () => {
  const at = Date.UTC(2026, 10, 25, 14, 37, 21, 500);

  it("ends with the bucket now is in, aligned to the bucket size", () => {
    expect(activityWindow("hour", at)).toEqual({
      range: "hour",
      startMs: Date.UTC(2026, 10, 25, 13, 38),
      endMs: Date.UTC(2026, 10, 25, 14, 38),
      bucketMs: 60_000,
      points: 60,
    });
    const day = activityWindow("day", at);
    expect([day.startMs, day.endMs, day.points]).toEqual([Date.UTC(2026, 10, 24, 14, 45), Date.UTC(2026, 10, 25, 14, 45), 96]);
    const week = activityWindow("week", at);
    expect([week.startMs, week.endMs, week.points]).toEqual([Date.UTC(2026, 10, 18, 15), Date.UTC(2026, 10, 25, 15), 168]);
  });
});
