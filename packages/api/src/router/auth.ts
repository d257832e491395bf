import { z } from "zod";
import { SIGNUP_MODES, type SsoFailure } from "@rehook/core";
import type { SessionUser } from "@rehook/auth";
import { checkInvite, clearedSsoCookie, finishSsoSignIn, logIn, logOut, signInOptions, signUp, signupMode, startSsoSignIn, teamChoiceCookie } from "@rehook/services";
import { pageProcedure, protectedProcedure, publicProcedure, router } from "../trpc.js";

const credentials = z.object({ email: z.string(), password: z.string() });
// An invite token is 32 characters; anything much longer is refused before it is hashed.
const inviteToken = z.string().max(200).nullish();

// The session's own procedures: they set and end the cookie, so they are not contracts (which
// know nothing of cookies); each still declares what it answers.
const user = z.custom<SessionUser>();
const signupPolicy = z.object({ mode: z.enum(SIGNUP_MODES), invite: z.custom<Awaited<ReturnType<typeof checkInvite>>>().nullable() });
// The dashboard origin the request came to (the Remix loader's URL): the provider sends the browser back there.
const dashboardOrigin = z.url({ protocol: /^https?$/ }).max(300);
const ssoOutcome = z.custom<{ ok: true; next: string } | { ok: false; failure: SsoFailure }>();

export const authRouter = router({
  me: publicProcedure.output(user.nullable()).query(({ ctx }) => ctx.session?.user ?? null),

  /** Who may sign up here, and (given a link's token) whether that invite can be used. */
  signupPolicy: publicProcedure.input(z.object({ invite: inviteToken })).output(signupPolicy).query(async ({ ctx, input }) => {
    const mode = signupMode(ctx.services);
    // With sign-up otherwise refused, the link decides: its state, and whether SIGNUP lets its maker create accounts.
    return { mode, invite: mode !== "open" && input.invite ? await checkInvite(ctx.services, input.invite) : null };
  }),

  signUp: publicProcedure.input(credentials.extend({ invite: inviteToken })).output(user).mutation(async ({ ctx, input }) => {
    const signedIn = await signUp(ctx.services, { ...input, clientAddress: ctx.clientAddress, requestId: ctx.requestId ?? null });
    ctx.setCookie(signedIn.cookie.serialized);
    // Invited into a team: the dashboard opens there rather than in the new personal team.
    if (signedIn.joinedTeamId) ctx.setCookie(teamChoiceCookie(ctx.services, signedIn.joinedTeamId));
    return signedIn.user;
  }),

  logIn: publicProcedure.input(credentials).output(user).mutation(async ({ ctx, input }) => {
    const signedIn = await logIn(ctx.services, { ...input, clientAddress: ctx.clientAddress, requestId: ctx.requestId ?? null });
    // A new session id at every login; the one the browser had (if any) ends.
    if (ctx.session) await logOut(ctx.services, ctx.session.sessionId);
    ctx.setCookie(signedIn.cookie.serialized);
    return signedIn.user;
  }),

  /** What the login page offers: the single sign-on button (its name) and the password form. */
  signInOptions: publicProcedure.output(z.custom<ReturnType<typeof signInOptions>>()).query(({ ctx }) => signInOptions(ctx.services)),

  /** Starts a single sign-on: the provider's URL to redirect to; the cookie binding it to this browser is set. */
  ssoStart: pageProcedure
    .input(z.object({ next: z.string().max(2048).nullable(), dashboardOrigin }))
    .output(z.object({ redirectTo: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const started = await startSsoSignIn(ctx.services, input);
      ctx.setCookie(started.cookie);
      return { redirectTo: started.redirectTo };
    }),

  /** The provider's callback: signs in (a new session, as logIn) or says why not; the pending sign-in ends either way. */
  ssoFinish: pageProcedure
    .input(z.object({ query: z.string().max(8192), dashboardOrigin, cookieHeader: z.string().max(16_384).nullable() }))
    .output(ssoOutcome)
    .mutation(async ({ ctx, input }) => {
      ctx.setCookie(clearedSsoCookie(ctx.services));
      const outcome = await finishSsoSignIn(ctx.services, { ...input, clientAddress: ctx.clientAddress, requestId: ctx.requestId ?? null });
      if (!outcome.ok) return outcome;
      if (ctx.session) await logOut(ctx.services, ctx.session.sessionId);
      ctx.setCookie(outcome.signedIn.cookie.serialized);
      return { ok: true, next: outcome.next };
    }),

  logOut: protectedProcedure.output(z.null()).mutation(async ({ ctx }) => {
    ctx.setCookie((await logOut(ctx.services, ctx.session.sessionId)).serialized);
    return null;
  }),
});
