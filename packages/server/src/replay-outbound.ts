import type { Config } from "@rehook/core";
import { createDeliveryPool } from "@rehook/delivery";
import type { ServiceContext } from "@rehook/services";

/** What a one-shot process needs to send replays, and how to let it go. */
export interface ReplayOutbound {
  outbound: ServiceContext["outbound"];
  close(): Promise<void>;
}

/** The limits replays go out with: forwarding's (FORWARD_TIMEOUT_MS, ALLOW_PRIVATE_DESTINATIONS). */
export function outboundOptions(config: Pick<Config, "forwardTimeoutMs" | "allowPrivateDestinations">): ServiceContext["outbound"]["options"] {
  return { timeoutMs: config.forwardTimeoutMs, allowPrivate: config.allowPrivateDestinations };
}

/**
 * One delivery worker with forwarding's limits, for a command that sends replays
 * (`rehook replay`). Unlike openInfrastructure it claims no events and runs no jobs: the
 * command must not become a forwarding instance for the moment it runs.
 */
export function openReplayOutbound(config: Pick<Config, "forwardTimeoutMs" | "allowPrivateDestinations">): ReplayOutbound {
  const pool = createDeliveryPool({ threads: 1 });
  return { outbound: { pool, options: outboundOptions(config) }, close: () => pool.close() };
}
