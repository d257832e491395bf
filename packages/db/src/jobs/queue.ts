import type { EntityManager } from "@mikro-orm/postgresql";
import type { Pool } from "../pool.js";

/** A job this instance claimed: it holds the lease until it settles the job. */
export interface ClaimedJob {
  id: string;
  kind: string;
  key: string;
  payload: unknown;
  /** Runs of it claimed since its last success, this one included. */
  attempt: number;
}

/** What a claim asks for, per kind: how many jobs it has room for and the lease they get. */
export interface JobClaimRequest {
  kind: string;
  slots: number;
  leaseMs: number;
}

/*
 * Due jobs (run_at passed, no live lease) of each kind, oldest run_at first, up to the
 * kind's free slots; SKIP LOCKED lets instances claim side by side. A claim counts an
 * attempt and clears `again` (set by an enqueue while the job runs: see settleJob).
 */
const CLAIM_JOBS = `
with wanted as (select * from unnest($1::text[], $2::int[], $3::float8[]) as w(kind, slots, lease_ms)),
picked as (
  select j.id, w.lease_ms from wanted w
  cross join lateral (
    select id from jobs
    where kind = w.kind and run_at <= now() and (lease_until is null or lease_until < now())
    order by run_at
    limit w.slots
    for update skip locked
  ) j
)
update jobs j
set lease_until = now() + make_interval(secs => p.lease_ms / 1000), attempts = j.attempts + 1, again = false
from picked p
where j.id = p.id
returning j.id, j.kind, j.key, j.payload, j.attempts`;

export async function claimJobs(pool: Pool, requests: JobClaimRequest[]): Promise<ClaimedJob[]> {
  const wanted = requests.filter((request) => request.slots > 0);
  if (wanted.length === 0) return [];
  const result = await pool.query<{ id: string; kind: string; key: string; payload: unknown; attempts: number }>({
    name: "rehook_claim_jobs",
    text: CLAIM_JOBS,
    values: [wanted.map((r) => r.kind), wanted.map((r) => r.slots), wanted.map((r) => r.leaseMs)],
  });
  return result.rows.map((row) => ({ id: String(row.id), kind: row.kind, key: row.key, payload: row.payload, attempt: row.attempts }));
}

/**
 * Makes sure a job of this kind and key is due: a new one runs after `runInMs`; an existing
 * one keeps its time (a wait it was given, such as a provider's Retry-After, stands) and, if
 * it is running, runs once more after it ends, so work added meanwhile is not missed.
 */
const enqueueSql = (p: (n: number) => string) => `
insert into jobs (kind, key, payload, run_at)
values (${p(1)}, ${p(2)}, coalesce(${p(3)}::jsonb, '{}'), now() + make_interval(secs => ${p(4)}::float8 / 1000))
on conflict (kind, key) do update set again = true`;
const ENQUEUE_JOB = enqueueSql((n) => `$${n}`);
/** ENQUEUE_JOB with the ORM's placeholders, for a use case's transaction. */
const ENQUEUE_JOB_ORM = enqueueSql(() => "?");

export interface NewJob {
  kind: string;
  key: string;
  payload?: unknown;
  runInMs?: number;
}

const enqueueValues = (job: NewJob) => [job.kind, job.key, job.payload === undefined ? null : JSON.stringify(job.payload), job.runInMs ?? 0];

/** The same, for a `users` query's team_id column (the notifier's one job per user), inside a larger statement. */
export const enqueueNotifyJobs = (users: string) => `
insert into jobs (kind, key, run_at)
select 'notify', u.team_id::text, greatest(now(), coalesce(n.next_post_at, now()))
from (select distinct team_id from (${users}) x) u left join notification_settings n on n.team_id = u.team_id
on conflict (kind, key) do update set again = true`;

export async function enqueueJob(pool: Pool, job: NewJob): Promise<void> {
  await pool.query(ENQUEUE_JOB, enqueueValues(job));
}

/** enqueueJob inside an ORM unit of work (the job commits with the rest of the use case). */
export async function enqueueJobWith(em: EntityManager, job: NewJob): Promise<void> {
  await em.execute(ENQUEUE_JOB_ORM, enqueueValues(job));
}

/** How a run ended, as stored. */
export type JobSettlement =
  /** Finished: the job is deleted, unless enqueued again while it ran (then it runs again after `rerunInMs`). */
  | { kind: "done"; rerunInMs: number }
  /** Finished this time; run it again after `inMs` (a recurring job, or pacing). */
  | { kind: "later"; inMs: number }
  /** This run failed: try again after `inMs`, the attempt counted. */
  | { kind: "failed"; inMs: number; error: string }
  /** The last attempt failed: the job is deleted. */
  | { kind: "gave_up"; error: string }
  /** Not run to its end (the instance is stopping): claimable again at once, the attempt not counted. */
  | { kind: "handed_back" };

/*
 * Each settlement applies only to the claim that made it (same attempt, lease not taken over):
 * a run that outlived its lease and was claimed again by someone else changes nothing.
 */
const SETTLE_DONE = `
with gone as (delete from jobs where id = $1 and attempts = $2 and not again returning id)
update jobs set lease_until = null, attempts = 0, last_error = null, run_at = now() + make_interval(secs => $3::float8 / 1000)
where id = $1 and attempts = $2 and again`;
const SETTLE_LATER = `
update jobs set lease_until = null, attempts = 0, last_error = null, run_at = now() + make_interval(secs => $3::float8 / 1000)
where id = $1 and attempts = $2`;
const SETTLE_FAILED = `
update jobs set lease_until = null, last_error = $4, run_at = now() + make_interval(secs => $3::float8 / 1000)
where id = $1 and attempts = $2`;
const SETTLE_GAVE_UP = `delete from jobs where id = $1 and attempts = $2`;
const SETTLE_HANDED_BACK = `update jobs set lease_until = null, attempts = greatest(attempts - 1, 0) where id = $1 and attempts = $2 and lease_until > now()`;

export async function settleJob(pool: Pool, job: Pick<ClaimedJob, "id" | "attempt">, settlement: JobSettlement): Promise<void> {
  const claim = [job.id, job.attempt];
  switch (settlement.kind) {
    case "done":
      await pool.query(SETTLE_DONE, [...claim, settlement.rerunInMs]);
      return;
    case "later":
      await pool.query(SETTLE_LATER, [...claim, settlement.inMs]);
      return;
    case "failed":
      await pool.query(SETTLE_FAILED, [...claim, settlement.inMs, settlement.error]);
      return;
    case "gave_up":
      await pool.query(SETTLE_GAVE_UP, claim);
      return;
    case "handed_back":
      await pool.query(SETTLE_HANDED_BACK, claim);
      return;
  }
}

/** Extends the leases of jobs still running here; answers the ids still held (a missing one was taken over). */
export async function renewJobLeases(pool: Pool, jobs: Array<Pick<ClaimedJob, "id" | "attempt"> & { leaseMs: number }>): Promise<Set<string>> {
  if (jobs.length === 0) return new Set();
  const result = await pool.query<{ id: string }>({
    name: "rehook_renew_job_leases",
    text: `
      update jobs j set lease_until = now() + make_interval(secs => r.lease_ms / 1000)
      from unnest($1::bigint[], $2::int[], $3::float8[]) as r(id, attempt, lease_ms)
      where j.id = r.id and j.attempts = r.attempt and j.lease_until > now()
      returning j.id`,
    values: [jobs.map((job) => job.id), jobs.map((job) => job.attempt), jobs.map((job) => job.leaseMs)],
  });
  return new Set(result.rows.map((row) => String(row.id)));
}
