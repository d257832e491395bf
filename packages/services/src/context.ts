import type { AddressPolicy } from "@rehook/core";
import type { ClaimedEvent, GroupCommitWriter, Orm } from "@rehook/db";

/** What the use cases need from the outside world; the composition root builds it once. */
export interface ServiceContext {
  orm: Orm;
  writer: GroupCommitWriter;
  baseUrl: string;
  /** Which destination addresses are allowed (ALLOW_PRIVATE_DESTINATIONS). */
  addressPolicy: AddressPolicy;
  /** Hands a just-committed pending event to delivery at once (no polling delay). */
  forwarder?: { offer(event: ClaimedEvent): void };
}
