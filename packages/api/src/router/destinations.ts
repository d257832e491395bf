import { destinationContracts as destinations } from "@rehook/services";
import { mutationOf, queryOf } from "../contract-procedure.js";
import { router } from "../trpc.js";

export const destinationsRouter = router({
  list: queryOf(destinations.listDestinationsContract),
  create: mutationOf(destinations.createDestinationContract),
  update: mutationOf(destinations.updateDestinationContract),
  delete: mutationOf(destinations.deleteDestinationContract),
  resume: mutationOf(destinations.resumeDestinationContract),
  testFilter: queryOf(destinations.testFilterContract),
});
