import { deliveryContracts as deliveries } from "@rehook/services";
import { mutationOf } from "../contract-procedure.js";
import { router } from "../trpc.js";

export const deliveriesRouter = router({
  resolve: mutationOf(deliveries.resolveDeliveryContract),
});
