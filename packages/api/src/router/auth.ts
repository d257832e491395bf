import { z } from "zod";
import { logIn, logOut, signUp } from "@rehook/services";
import { protectedProcedure, publicProcedure, router } from "../trpc.js";

const credentials = z.object({ email: z.string(), password: z.string() });

export const authRouter = router({
  me: publicProcedure.query(({ ctx }) => ctx.session?.user ?? null),

  signUp: publicProcedure.input(credentials).mutation(async ({ ctx, input }) => {
    const signedIn = await signUp(ctx.services, { ...input, clientAddress: ctx.clientAddress });
    ctx.setCookie(signedIn.cookie.serialized);
    return signedIn.user;
  }),

  logIn: publicProcedure.input(credentials).mutation(async ({ ctx, input }) => {
    const signedIn = await logIn(ctx.services, { ...input, clientAddress: ctx.clientAddress });
    // A new session id at every login; the one the browser had (if any) ends.
    if (ctx.session) await logOut(ctx.services, ctx.session.sessionId);
    ctx.setCookie(signedIn.cookie.serialized);
    return signedIn.user;
  }),

  logOut: protectedProcedure.mutation(async ({ ctx }) => {
    ctx.setCookie((await logOut(ctx.services, ctx.session.sessionId)).serialized);
    return null;
  }),
});
