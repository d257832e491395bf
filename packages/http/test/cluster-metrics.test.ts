import { describe, expect, it } from "vitest";
import { parsePromText } from "@rehook/vitest-config/prometheus-text";
import { WorkerTally } from "../src/index.js";

// What a `--workers N` primary adds up from the workers' reports (the IPC around it is in apps/cli/test/workers-metrics.test.ts).

/** One worker's report: a counter and a gauge, as prom-client's getMetricsAsJSON gives them. */
const report = (captured: number, inFlight: number) => [
  { name: "rehook_events_captured_total", help: "Captures.", type: "counter", aggregator: "sum" as const, values: [{ labels: { outcome: "stored" }, value: captured }] },
  { name: "rehook_in_flight", help: "Now.", type: "gauge", aggregator: "sum" as const, values: [{ labels: {}, value: inFlight }] },
];

async function scrape(tally: WorkerTally, reports: Array<[number, ReturnType<typeof report>]>, asked: number[]) {
  for (const [workerId, metrics] of reports) tally.report(workerId, metrics);
  const text = parsePromText(await tally.text([], new Map(reports), asked));
  return {
    captured: text.value("rehook_events_captured_total", { outcome: "stored" }),
    inFlight: text.value("rehook_in_flight"),
    answered: text.value("rehook_cluster_workers", { state: "answered" }),
    late: text.value("rehook_cluster_workers", { state: "late" }),
  };
}

describe("WorkerTally", () => {
  it("a worker missing from a scrape counts with its last counters, whether it was asked (late) or not (disconnected, not yet exited)", async () => {
    const tally = new WorkerTally();
    expect(await scrape(tally, [[1, report(3, 1)], [2, report(4, 1)]], [1, 2])).toEqual({ captured: 7, inFlight: 2, answered: 2, late: 0 });
    // Worker 2 is asked and does not answer in time.
    expect(await scrape(tally, [[1, report(5, 1)]], [1, 2])).toEqual({ captured: 9, inFlight: 1, answered: 1, late: 1 });
    // Worker 2's channel has closed, so it is not asked; it has not exited: its counts must not drop.
    expect(await scrape(tally, [[1, report(6, 1)]], [1])).toEqual({ captured: 10, inFlight: 1, answered: 1, late: 1 });
  });

  it("an exited worker's last counters stay in the totals for good, and it is no longer late", async () => {
    const tally = new WorkerTally();
    await scrape(tally, [[1, report(3, 1)], [2, report(4, 1)]], [1, 2]);
    tally.retire(2);
    expect(await scrape(tally, [[1, report(5, 1)], [3, report(1, 1)]], [1, 3])).toEqual({ captured: 10, inFlight: 2, answered: 2, late: 0 });
  });

  it("a worker asked before its first report is late with nothing to add", async () => {
    const tally = new WorkerTally();
    expect(await scrape(tally, [[1, report(3, 1)]], [1, 2])).toEqual({ captured: 3, inFlight: 1, answered: 1, late: 1 });
  });
});
