// pnpm bench:rate-limit — a destination limited to --rate deliveries per second, with
// --events queued for it at once, drained by one and then by two Rehook instances on one
// database: the rate achieved at the destination (starts per second, from its own clock),
// and the most it saw in any one second. The limit is shared: two instances must not double it.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { startEmbeddedPostgres } from "@rehook/db";
import { CLI, runRehook, startListening, stop, type Started } from "./processes.js";
import { sendAll, startRecordingSink, until } from "./recording-sink.js";

const { values } = parseArgs({
  options: {
    rate: { type: "string", default: "20" },
    events: { type: "string", default: "1000" },
  },
});
const rate = Number(values.rate);
const events = Number(values.events);

/** Starts per second over the run, and the most in any one-second window (sliding). */
function pace(times: number[]): { perSecond: number; busiestSecond: number } {
  const sorted = [...times].sort((a, b) => a - b);
  const seconds = (sorted.at(-1)! - sorted[0]!) / 1000;
  let busiest = 0;
  for (let i = 0, j = 0; i < sorted.length; i += 1) {
    while (sorted[i]! - sorted[j]! >= 1000) j += 1;
    busiest = Math.max(busiest, i - j + 1);
  }
  // n starts span n - 1 intervals.
  return { perSecond: (sorted.length - 1) / seconds, busiestSecond: busiest };
}

async function main() {
  process.stdout.write(`bench:rate-limit  ${events} events queued for a destination limited to ${rate}/s, node ${process.version}\n\n`);
  const dataDir = await mkdtemp(path.join(tmpdir(), "rehook-bench-rate-"));
  const database = await startEmbeddedPostgres({ dataDir });
  const env = { DATABASE_URL: database.url, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn", ALLOW_PRIVATE_DESTINATIONS: "true" };
  const sink = await startRecordingSink();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const instances: Started[] = [];
  let failed = false;
  try {
    await runRehook(["user", "create", "--email", "bench@example.com", "--password", "bench-password"], env);
    for (const count of [1, 2]) {
      const name = `paced-${count}`;
      const endpoint = JSON.parse(await runRehook(["endpoint", "create", "--email", "bench@example.com", "--name", name, "--destination", `${sink.url}/${name}`], env)) as {
        id: string;
        slug: string;
      };
      // Paused by hand while the backlog is captured, so all of it is queued when the limit starts to count.
      await client.query("update destinations set rate_limit_per_second = $2, forwarding_paused_at = now(), paused_reason = 'bench' where endpoint_id = $1", [endpoint.id, rate]);
      while (instances.length < count) instances.push(await startListening(CLI, ["start"], { ...env, LOG_LEVEL: "info" }));
      const bodies = Array.from({ length: events }, (_, n) => JSON.stringify({ id: `evt_${count}_${n}`, type: "bench" }));
      const acknowledged = await sendAll(`${instances[0]!.url}/api/webhook/${endpoint.slug}`, bodies, 20);
      await client.query("update destinations set forwarding_paused_at = null, paused_reason = null where endpoint_id = $1", [endpoint.id]);
      const arrived = () => sink.arrivals.filter((a) => a.path === `/${name}`);
      const done = await until(() => arrived().length >= acknowledged.length, (2 * events * 1000) / rate + 30_000);
      const { perSecond, busiestSecond } = pace(arrived().map((a) => a.at));
      const within = Math.abs(perSecond - rate) / rate <= 0.1;
      failed ||= !done || !within;
      process.stdout.write(
        `${String(count)} instance${count > 1 ? "s" : " "}   ${arrived().length} of ${acknowledged.length} delivered${done ? "" : " (TIMED OUT)"}, ` +
          `${perSecond.toFixed(2)} per second (${((100 * perSecond) / rate).toFixed(1)}% of the limit${within ? ", within 10%" : ", NOT within 10%"}), at most ${busiestSecond} in any one second\n`,
      );
    }
  } finally {
    await client.end();
    for (const instance of instances) await stop(instance.child);
    await sink.close();
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:rate-limit failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
