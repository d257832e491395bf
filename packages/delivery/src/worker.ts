// A piscina worker: sends requests and returns their results. It never touches the database;
// the dispatcher on the main thread persists what comes back.
import type { Agent } from "undici";
import { createSafeAgent } from "./safe-agent.js";
import { sendRequest } from "./send.js";
import type { DeliveryResult, DeliveryTask } from "./types.js";

const agents = new Map<boolean, Agent>();

function agentFor(task: DeliveryTask): Agent {
  let agent = agents.get(task.allowPrivate);
  if (!agent) {
    agent = createSafeAgent({ policy: { allowPrivate: task.allowPrivate }, connectTimeoutMs: Math.min(task.timeoutMs, 10_000) });
    agents.set(task.allowPrivate, agent);
  }
  return agent;
}

export default function deliver(task: DeliveryTask): Promise<DeliveryResult> {
  return sendRequest(agentFor(task), task);
}
