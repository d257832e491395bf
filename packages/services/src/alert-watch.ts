import { nextFiring, type MeasuredRate } from "@rehook/core";
import { lockFiring, measuredRates, raiseAlerts, saveFiring, thresholdRules, type JobHandler, type Orm, type Pool } from "@rehook/db";

/** The job that measures the threshold rules' rates (key "all"), once a minute. */
export const ALERT_WATCH_JOB = "alert_watch";
const ALERT_WATCH_EVERY_MS = 60_000;

/**
 * Measures every enabled threshold rule (health below, invalid signatures above) over the
 * last ALERT_WINDOW_MINUTES, and raises an alert for each endpoint that crossed its threshold
 * since the last measurement. An endpoint alerts once per crossing: it fires until a
 * measurement finds it back within the threshold. Answers the alerts raised.
 */
export async function watchAlertThresholds(deps: { pool: Pool; orm: Orm; now?: () => number }): Promise<number> {
  let raised = 0;
  const now = (deps.now ?? Date.now)();
  // Rules of one team that watch the same rate over the same endpoints share one measurement.
  const measured = new Map<string, Promise<MeasuredRate[]>>();
  for (const rule of await thresholdRules(deps.pool)) {
    const scope = `${rule.teamId}/${rule.trigger}/${rule.endpointId ?? "*"}`;
    if (!measured.has(scope)) measured.set(scope, measuredRates(deps.pool, rule, now));
    const rates = await measured.get(scope)!;
    raised += await deps.orm.em.fork().transactional(async (em) => {
      const previous = await lockFiring(em, rule.id);
      if (previous === null) return 0; // disabled or deleted meanwhile
      const { started, firing } = nextFiring(rule.trigger, rule.threshold, previous, rates);
      for (const rate of started) {
        await raiseAlerts(em, { teamId: rule.teamId, kind: rule.trigger, endpointId: rate.endpointId, detail: { part: rate.part, total: rate.total, threshold: rule.threshold }, ruleIds: [rule.id] });
      }
      if (firing.join() !== previous.join()) await saveFiring(em, rule.id, firing);
      return started.length;
    });
  }
  return raised;
}

export function alertWatch(deps: { pool: Pool; orm: Orm; now?: () => number }): JobHandler {
  return {
    kind: ALERT_WATCH_JOB,
    async run(job) {
      if (job.signal.aborted) return { kind: "stopped" };
      await watchAlertThresholds(deps);
      return { kind: "later", inMs: ALERT_WATCH_EVERY_MS };
    },
  };
}
