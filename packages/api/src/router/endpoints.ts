import { endpointContracts as endpoints } from "@rehook/services";
import { mutationOf, presentedQueryOf, queryOf } from "../contract-procedure.js";
import { router } from "../trpc.js";

export const endpointsRouter = router({
  // The dashboard shows every endpoint: the list itself, without the page's total.
  list: presentedQueryOf(endpoints.listEndpointsContract, (page) => page.endpoints),
  get: queryOf(endpoints.getEndpointContract),
  create: mutationOf(endpoints.createEndpointContract),
  update: mutationOf(endpoints.updateEndpointContract),
  delete: mutationOf(endpoints.deleteEndpointContract),
  secret: queryOf(endpoints.endpointSecretContract),
  rotateSecret: mutationOf(endpoints.rotateSecretContract),
  resume: mutationOf(endpoints.resumeEndpointContract),
  activity: queryOf(endpoints.endpointActivityContract),
  retryFailed: mutationOf(endpoints.retryFailedContract),
});
