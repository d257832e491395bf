import type { AddressPolicy } from "@rehook/core";
import type { ClaimedEvent, GroupCommitWriter, Orm } from "@rehook/db";

/** What the use cases need from the outside world; the composition root builds it once. */
export interface ServiceContext {
  orm: Orm;
  writer: GroupCommitWriter;
  baseUrl: string;
  /** Which destination addresses are allowed (ALLOW_PRIVATE_DESTINATIONS). */
  addressPolicy: AddressPolicy;
  /**
   * Hands a just-committed event, stored already leased to this instance (see the writer's
   * fast path), to delivery at once: no polling delay and no second statement.
   */
  forwarder?: { deliverLeased(event: ClaimedEvent): void };
}
