import { replayContracts as replays } from "@rehook/services";
import { mutationOf, queryOf } from "../contract-procedure.js";
import { router } from "../trpc.js";

export const replaysRouter = router({
  create: mutationOf(replays.replayEventContract),
  editSource: queryOf(replays.editSourceContract),
  localRequest: queryOf(replays.localRequestContract),
  recordLocal: mutationOf(replays.recordLocalContract),
  handToListener: mutationOf(replays.handToListenerContract),
  localOutcome: queryOf(replays.localOutcomeContract),
  list: queryOf(replays.listReplaysContract),
  get: queryOf(replays.getReplayContract),
  startBulk: mutationOf(replays.startBulkContract),
  bulk: queryOf(replays.bulkStatusContract),
});
