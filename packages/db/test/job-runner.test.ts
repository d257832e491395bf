import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "@rehook/core";
import { createTestDatabase, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { waitFor } from "../../../tooling/vitest/src/wait-for.js";
import { createPool, enqueueJob, JobRunner, type JobHandler, type JobRunnerOptions, type Pool, type RunningJob } from "../src/index.js";

// The job runner against a real PostgreSQL: every job runs on one runner at a time, at its
// run-at time, failures come back with backoff until they are given up, work enqueued while
// a job runs is not missed, and a stopping or crashed runner's jobs resume elsewhere.

let db: TestDatabase;
let pool: Pool;
const runners: JobRunner[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 6 });
});
beforeEach(async () => {
  await db.query("delete from jobs");
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.stop()));
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

function runner(handlers: JobHandler[], options: Partial<JobRunnerOptions> = {}): JobRunner {
  const started = new JobRunner({ db: pool, logger: silentLogger, pollMs: 20, ...options });
  handlers.forEach((handler) => started.register(handler));
  started.start();
  runners.push(started);
  return started;
}

const jobRow = async (key: string) =>
  (await db.query<{ attempts: number; leased: boolean; last_error: string | null; due_in_ms: number }>(
    "select attempts, coalesce(lease_until > now(), false) as leased, last_error, (extract(epoch from run_at - now()) * 1000)::float8 as due_in_ms from jobs where key = $1",
    [key],
  ))[0];

/** A promise and the function that resolves it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe("job runner", () => {
  it("runs each job once across two runners, and only when its run-at time has come", async () => {
    const runs: string[] = [];
    const handler: JobHandler = { kind: "count", concurrency: 5, run: async (job) => (runs.push(job.key), { kind: "done" }) };
    runner([handler]);
    runner([handler]);
    for (let i = 0; i < 40; i += 1) await enqueueJob(pool, { kind: "count", key: `job-${i}` });
    await enqueueJob(pool, { kind: "count", key: "later", runInMs: 60_000 });
    await waitFor(() => runs.length === 40, "every due job to run");
    await waitFor(async () => (await db.query("select key from jobs")).length === 1, "the finished jobs to be deleted");
    expect(new Set(runs).size).toBe(40);
    expect(runs).not.toContain("later");
    expect((await jobRow("later"))!.due_in_ms).toBeGreaterThan(50_000);
  });

  it("runs a failed job again with backoff, counting attempts, and gives it up after maxAttempts", async () => {
    const attempts: number[] = [];
    let gaveUp: RunningJob | undefined;
    runner([
      {
        kind: "flaky",
        maxAttempts: 2,
        run: async (job) => {
          attempts.push(job.attempt);
          throw new Error(`broken ${job.attempt}`);
        },
        gaveUp: async (job) => void (gaveUp = job),
      },
    ]);
    await enqueueJob(pool, { kind: "flaky", key: "f" });
    await waitFor(() => attempts.length === 1, "the first run");
    await waitFor(async () => (await jobRow("f"))?.last_error === "broken 1", "the failure to be stored");
    const first = (await jobRow("f"))!;
    expect(first.attempts).toBe(1);
    // The second run waits about a second (failedRunDelay(1)).
    expect(first.due_in_ms).toBeGreaterThan(500);
    await waitFor(() => gaveUp !== undefined, "the job to be given up", 10_000);
    expect(attempts).toEqual([1, 2]);
    expect(gaveUp!.key).toBe("f");
    await waitFor(async () => (await jobRow("f")) === undefined, "the given-up job to be deleted");
  });

  it("runs a job again when it was enqueued while it ran, and keeps a recurring job's schedule", async () => {
    const running = gate();
    const release = gate();
    let runs = 0;
    runner([
      {
        kind: "again",
        run: async () => {
          runs += 1;
          if (runs === 1) {
            running.open();
            await release.opened;
          }
          return { kind: "done" };
        },
      },
      { kind: "recurring", run: async () => ({ kind: "later", inMs: 3_600_000 }) },
    ]);
    await enqueueJob(pool, { kind: "again", key: "a" });
    await running.opened;
    await enqueueJob(pool, { kind: "again", key: "a" });
    release.open();
    await waitFor(() => runs === 2, "the second run for the work enqueued meanwhile");
    await waitFor(async () => (await jobRow("a")) === undefined, "the job to end after it");

    await enqueueJob(pool, { kind: "recurring", key: "r" });
    await waitFor(async () => ((await jobRow("r"))?.due_in_ms ?? 0) > 3_000_000, "the recurring job to be scheduled an hour on");
    expect((await jobRow("r"))!.attempts).toBe(0);
  });

  it("a stopping runner hands its running job back at once, without counting an attempt; another resumes it", async () => {
    const started = gate();
    const seen: Array<{ runner: string; attempt: number }> = [];
    const stoppable = (name: string): JobHandler => ({
      kind: "long",
      run: async (job) => {
        seen.push({ runner: name, attempt: job.attempt });
        if (name === "first") {
          started.open();
          await new Promise((resolve) => job.signal.addEventListener("abort", resolve));
          return { kind: "stopped" };
        }
        return { kind: "done" };
      },
    });
    const first = runner([stoppable("first")]);
    await enqueueJob(pool, { kind: "long", key: "l" });
    await started.opened;
    await first.stop();
    expect(await jobRow("l")).toMatchObject({ attempts: 0, leased: false });
    runner([stoppable("second")]);
    await waitFor(async () => (await jobRow("l")) === undefined, "the other runner to finish it");
    expect(seen).toEqual([
      { runner: "first", attempt: 1 },
      { runner: "second", attempt: 1 },
    ]);
  });

  it("a crashed runner's job resumes elsewhere when its lease expires, and the old holder is told it lost the lease", async () => {
    const started = gate();
    let lost = false;
    const seen: string[] = [];
    runner(
      [
        {
          kind: "crash",
          leaseMs: 300,
          run: async (job) => {
            seen.push("stuck");
            started.open();
            // Stuck (as a frozen process would be) until told the lease is gone.
            await new Promise((resolve) => job.signal.addEventListener("abort", resolve));
            lost = true;
            return { kind: "stopped" };
          },
        },
      ],
      // Renews too late for its lease: as if the process had frozen.
      { renewMs: 1_000 },
    );
    await enqueueJob(pool, { kind: "crash", key: "c" });
    await started.opened;
    runner([{ kind: "crash", run: async () => (seen.push("resumed"), { kind: "done" }) }]);
    await waitFor(() => seen.includes("resumed"), "another runner to take the job after the lease expired");
    await waitFor(() => lost, "the first holder to learn that its lease was lost");
    await waitFor(async () => (await jobRow("c")) === undefined, "the job to end");
  });
});
