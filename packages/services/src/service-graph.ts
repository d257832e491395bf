import type { Logger } from "@rehook/core";
import { BulkReplays } from "./bulk-replays.js";
import type { ServiceContext } from "./context.js";

/**
 * The complete service graph: every dependency the use cases take, and the engines built on
 * them. Built once by `createServices` and frozen, so no transport or job sees a partial one.
 */
export interface Services extends Readonly<ServiceContext> {
  /** Runs bulk replays as jobs of the job runner. */
  readonly bulkReplays: BulkReplays;
}

export interface ServiceInfrastructure extends ServiceContext {
  logger: Logger;
  /** Asks the job runner to look for due jobs now (a bulk replay starts at once). */
  wakeJobs(): void;
}

export function createServices(infra: ServiceInfrastructure): Services {
  const { wakeJobs, ...context } = infra;
  const bulkReplays = new BulkReplays({ orm: context.orm, outbound: context.outbound, addressPolicy: context.addressPolicy, wakeJobs }, context.logger);
  return Object.freeze({ ...context, bulkReplays });
}
