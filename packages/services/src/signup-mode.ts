import type { SignupMode } from "@rehook/core";
import type { ServiceContext } from "./context.js";

/** Who may sign up on the dashboard (SIGNUP; open when unset). */
export function signupMode(ctx: Pick<ServiceContext, "signup">): SignupMode {
  return ctx.signup ?? "open";
}
