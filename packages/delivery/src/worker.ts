// A piscina worker: sends a batch of requests side by side and streams each result back as
// it arrives (a slow destination never holds back its neighbours' results). It never
// touches the database; the dispatcher on the main thread persists what comes back.
import { createSafeAgent, type SafeAgent } from "./safe-agent.js";
import { sendRequest } from "./send.js";
import type { DeliveryBatch, DeliveryResult, DeliveryTask, ResultMessage } from "./types.js";

// One agent per policy per worker thread: forwards, replays and chat posts share its pool.
const agents = new Map<boolean, SafeAgent>();

function agentFor(task: DeliveryTask): SafeAgent {
  let agent = agents.get(task.allowPrivate);
  if (!agent) {
    agent = createSafeAgent({ policy: { allowPrivate: task.allowPrivate }, connectTimeoutMs: Math.min(task.timeoutMs, 10_000) });
    agents.set(task.allowPrivate, agent);
  }
  return agent;
}

async function send(task: DeliveryTask): Promise<DeliveryResult | null> {
  // Too late to finish inside the claim's lease: leave the event to whoever claims it next.
  if (task.startBy !== undefined && Date.now() > task.startBy) return null;
  return sendRequest(agentFor(task), task);
}

export default async function deliverBatch({ tasks, results }: DeliveryBatch): Promise<void> {
  // Results finished in the same turn of the event loop travel in one message.
  let outbox: ResultMessage = [];
  const flush = () => {
    if (outbox.length === 0) return;
    results.postMessage(outbox);
    outbox = [];
  };
  await Promise.all(
    tasks.map(async (task, index) => {
      const result = await send(task);
      if (outbox.length === 0) setImmediate(flush);
      outbox.push([index, result]);
    }),
  );
  flush();
}
