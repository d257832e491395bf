import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { INVITE_REQUIRED_MESSAGE, SIGNUP_CLOSED_MESSAGE, inviteAccountsRefusal, inviteRefusal } from "@rehook/core/browser";
import { safeRedirectPath } from "@rehook/core/browser";
import { CredentialsForm } from "../components/credentials-form";
import { SubmitButton } from "../components/form-fields";
import { FormError, StandalonePage } from "../components/ui";
import { errorMessage } from "../lib/errors";
import { noticeCookie } from "../lib/notice.server";
import "../features/account/signup.css";

export const meta: MetaFunction = () => [{ title: "Sign up · Rehook" }];

/**
 * Signed out: who may sign up, and whether the link's invite can be used (and whether SIGNUP
 * lets it create an account). Signed in with an invite link: the page offers to join its
 * team; signed in without one: the dashboard.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const invite = new URL(request.url).searchParams.get("invite");
  if (context.user && !invite) throw redirect("/");
  const policy = await context.caller.auth.signupPolicy({ invite });
  const options = await context.caller.auth.signInOptions();
  return { ...policy, ...options, signedInAs: context.user?.email ?? null };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const invite = form.get("invite");
  if (form.get("intent") === "join") return joinTeam(context, typeof invite === "string" ? invite : "");
  const email = String(form.get("email") ?? "");
  try {
    await context.caller.auth.signUp({ email, password: String(form.get("password") ?? ""), invite: typeof invite === "string" ? invite : null });
  } catch (error) {
    return data({ error: errorMessage(error), email }, { status: 400 });
  }
  return redirect(safeRedirectPath(form.get("next")), 303);
}

/** A signed-in user accepts the invite: they join its team, and the dashboard opens there. */
async function joinTeam(context: ActionFunctionArgs["context"], token: string) {
  if (!context.user) return data({ error: "Sign in first, then open the invite link again.", email: undefined }, { status: 401 });
  try {
    const joined = await context.caller.members.acceptInvite({ token });
    await context.caller.teams.switch({ teamId: joined.teamId });
    return redirect("/", { status: 303, headers: { "Set-Cookie": noticeCookie(`You joined the team “${joined.name}”.`) } });
  } catch (error) {
    return data({ error: errorMessage(error), email: undefined }, { status: 400 });
  }
}

type Policy = ReturnType<typeof useLoaderData<typeof loader>>;

/** Why this page shows no form (sign-up closed, by invitation, or a link that cannot be used), or null. */
function refusal(policy: Policy, hasInvite: boolean): { title: string; message: string } | null {
  // The invite's state is known when SIGNUP is invite or closed; with open sign-up a bad link is refused when the form is sent.
  if (policy.invite === "accounts_only") {
    // Signed in, the link still adds this account to its team; signed out, it creates none here.
    if (policy.signedInAs || policy.mode === "open") return null;
    return { title: "Log in to use this invite", message: inviteAccountsRefusal(policy.mode) };
  }
  if (policy.invite !== null && policy.invite !== "open") return { title: "This invite cannot be used", message: inviteRefusal(policy.invite) };
  if (hasInvite) return null;
  if (policy.mode === "closed") return { title: "Sign-up is closed", message: SIGNUP_CLOSED_MESSAGE };
  if (policy.mode === "invite") return { title: "Sign-up is by invitation", message: INVITE_REQUIRED_MESSAGE };
  return null;
}

export default function Signup() {
  const policy = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const [params] = useSearchParams();
  const invite = params.get("invite") ?? undefined;
  const refused = refusal(policy, invite !== undefined);
  if (refused) {
    return (
      <StandalonePage auth title={refused.title}>
        <p className="signup-refusal" data-testid="signup-refusal">
          {refused.message}
        </p>
        <p className="muted small">
          {policy.signedInAs ? (
            <Link to="/">Back to the dashboard</Link>
          ) : (
            <>
              Already have an account? {/* Back to this invite once logged in: it then offers to join its team. */}
              <Link to={invite ? `/login?next=${encodeURIComponent(`/signup?invite=${invite}`)}` : "/login"}>Log in</Link>
            </>
          )}
        </p>
      </StandalonePage>
    );
  }
  if (policy.signedInAs && invite) return <JoinTeam email={policy.signedInAs} invite={invite} error={result?.error} />;
  return (
    <CredentialsForm
      mode="signup"
      error={result?.error}
      email={result?.email}
      next={params.get("next") ?? undefined}
      invite={invite}
      sso={policy.sso}
      passwordLogin={policy.passwordLogin}
      // Signed in by single sign-on, an invite link's page then offers to join its team.
      ssoNext={invite ? `/signup?invite=${encodeURIComponent(invite)}` : undefined}
    />
  );
}

/** Signed in already: join the invite's team with this account. */
function JoinTeam({ email, invite, error }: { email: string; invite: string; error: string | undefined }) {
  const navigation = useNavigation();
  return (
    <StandalonePage auth title="Join a team">
      <p className="muted auth-tagline">This invite link adds you to a team on this Rehook server, with the role the admin chose.</p>
      <p>
        You are signed in as <strong className="break">{email}</strong>. Join with this account?
      </p>
      <Form method="post" className="stack">
        <input type="hidden" name="intent" value="join" />
        <input type="hidden" name="invite" value={invite} />
        <FormError message={error} />
        <SubmitButton busy={navigation.state !== "idle"} busyLabel="Joining…" className="button primary block">
          Join team
        </SubmitButton>
      </Form>
      <p className="muted small">
        Not you? Log out, then open the link again to sign up. <Link to="/">Back to the dashboard</Link>
      </p>
    </StandalonePage>
  );
}
