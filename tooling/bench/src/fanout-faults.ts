// pnpm bench:fanout-faults — fan-out to three destinations (one takes every event, one the
// even ones, one every third), so that events go to one, two or three destinations (those
// going to one only have the fast path's lease on the event row), first without faults, then
// with Rehook killed (SIGKILL) and PostgreSQL restarted while the events are captured and forwarded. Senders retry until answered 200, as
// providers do. Checked at the end: every acknowledged event reached every destination whose
// filter matches it — exactly once without faults, at least once with them — and none
// reached a destination whose filter does not match it.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "@rehook/db";
import { CLI, runRehook, startListening, stop, type Started } from "./processes.js";
import { sendAll, startRecordingSink, until, type RecordingSink } from "./recording-sink.js";

const { values } = parseArgs({ options: { events: { type: "string", default: "3000" } } });
const events = Number(values.events);
/** The destinations, each with the filter it is added with and which events (by n) it takes. */
const DESTINATIONS = [
  { name: "all", filter: null, takes: () => true },
  { name: "even-only", filter: '{"body.even":true}', takes: (n: number) => n % 2 === 0 },
  { name: "third-only", filter: '{"body.third":true}', takes: (n: number) => n % 3 === 0 },
] as const;

interface Run {
  acknowledged: string[];
  /** Per destination: deliveries per event id (by the body's n), and events sent that its filter does not match. */
  missing: Record<string, number>;
  duplicates: Record<string, number>;
  unexpected: Record<string, number>;
  seconds: number;
}

/** What each destination got of the run's events (bodies carry run and n). */
function tally(sink: RecordingSink, run: string, sent: number): Pick<Run, "missing" | "duplicates" | "unexpected"> {
  const result = { missing: {} as Record<string, number>, duplicates: {} as Record<string, number>, unexpected: {} as Record<string, number> };
  for (const { name, takes } of DESTINATIONS) {
    const counts = new Map<number, number>();
    for (const arrival of sink.arrivals) {
      if (arrival.path !== `/${name}`) continue;
      const body = JSON.parse(arrival.body) as { run: string; n: number };
      if (body.run === run) counts.set(body.n, (counts.get(body.n) ?? 0) + 1);
    }
    let missing = 0;
    let duplicates = 0;
    let unexpected = 0;
    for (let n = 0; n < sent; n += 1) {
      const matches = takes(n);
      const got = counts.get(n) ?? 0;
      if (matches && got === 0) missing += 1;
      if (got > 1) duplicates += got - 1;
      if (!matches && got > 0) unexpected += 1;
    }
    result.missing[name] = missing;
    result.duplicates[name] = duplicates;
    result.unexpected[name] = unexpected;
  }
  return result;
}

async function main() {
  process.stdout.write(
    `bench:fanout-faults  ${events} events per run to 3 destinations (all, even ones, every third: a third of the events go to one only), node ${process.version}\n\n`,
  );
  const dataDir = await mkdtemp(path.join(tmpdir(), "rehook-bench-faults-"));
  let database: EmbeddedDatabase = await startEmbeddedPostgres({ dataDir });
  // Short leases (timeout 2 s: leases of 9 s) so work a killed instance held comes back soon.
  const env = { DATABASE_URL: database.url, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn", ALLOW_PRIVATE_DESTINATIONS: "true", FORWARD_TIMEOUT_MS: "2000" };
  const sink = await startRecordingSink();
  let rehook: Started | undefined;
  let failed = false;
  try {
    await runRehook(["user", "create", "--email", "bench@example.com", "--password", "bench-password"], env);
    for (const run of ["no faults", "kill -9 and a PostgreSQL restart"]) {
      const slug = run.replaceAll(/\W+/g, "-");
      const endpoint = JSON.parse(await runRehook(["endpoint", "create", "--email", "bench@example.com", "--name", slug, "--destination", `${sink.url}/${DESTINATIONS[0].name}`], env)) as {
        id: string;
        slug: string;
      };
      for (const { name, filter } of DESTINATIONS.slice(1)) {
        await runRehook(["destination", "add", "--email", "bench@example.com", "--endpoint", endpoint.slug, "--url", `${sink.url}/${name}`, ...(filter ? ["--filter", filter] : [])], env);
      }
      rehook ??= await startListening(CLI, ["start"], { ...env, LOG_LEVEL: "info" });
      const started = performance.now();
      const bodies = Array.from({ length: events }, (_, n) => JSON.stringify({ run: slug, n, even: n % 2 === 0, third: n % 3 === 0 }));
      const captureUrl = () => `${rehook!.url}/api/webhook/${endpoint.slug}`;
      let sending: Promise<string[]>;
      if (run === "no faults") {
        sending = sendAll(captureUrl(), bodies, 20);
      } else {
        // A third of the events, then a kill; the next third on a new instance, then PostgreSQL restarts; then the rest.
        const third = Math.floor(events / 3);
        const first = await sendAll(captureUrl(), bodies.slice(0, third), 20);
        rehook.child.kill("SIGKILL");
        await new Promise((resolve) => rehook!.child.once("exit", resolve));
        process.stdout.write("  killed rehook (SIGKILL)\n");
        rehook = await startListening(CLI, ["start"], { ...env, LOG_LEVEL: "info" });
        const second = await sendAll(captureUrl(), bodies.slice(third, 2 * third), 20);
        await database.stop();
        process.stdout.write("  stopped PostgreSQL\n");
        database = await startEmbeddedPostgres({ dataDir });
        if (database.url !== env.DATABASE_URL) throw new Error("PostgreSQL came back on another port");
        process.stdout.write("  started PostgreSQL again\n");
        sending = sendAll(captureUrl(), bodies.slice(2 * third), 20).then((rest) => [...first, ...second, ...rest]);
      }
      const acknowledged = await sending;
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const settled = await until(
        // Pending events: those with a pending delivery row, and those whose only delivery the fast path holds on the event.
        async () => Number((await client.query("select count(*) as n from events where endpoint_id = $1 and status = 'pending'", [endpoint.id])).rows[0].n) === 0,
        180_000,
      );
      await client.end();
      const result = tally(sink, slug, events);
      const seconds = (performance.now() - started) / 1000;
      const faults = run !== "no faults";
      const lost = Object.values(result.missing).reduce((a, b) => a + b, 0);
      const extra = Object.values(result.duplicates).reduce((a, b) => a + b, 0);
      const wrong = Object.values(result.unexpected).reduce((a, b) => a + b, 0);
      const ok = settled && acknowledged.length === events && lost === 0 && wrong === 0 && (faults || extra === 0);
      failed ||= !ok;
      process.stdout.write(
        `${run.padEnd(34)} ${acknowledged.length} acknowledged in ${seconds.toFixed(1)} s; missing ${JSON.stringify(result.missing)}, ` +
          `sent twice or more ${JSON.stringify(result.duplicates)}, to a destination whose filter does not match ${wrong}${settled ? "" : " (deliveries still pending)"}: ${ok ? "ok" : "FAILED"}\n`,
      );
    }
  } finally {
    if (rehook) await stop(rehook.child);
    await sink.close();
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:fanout-faults failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
