import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { INVITE_REQUIRED_MESSAGE, SIGNUP_CLOSED_MESSAGE, inviteRefusal } from "@rehook/core/browser";
import { safeRedirectPath } from "@rehook/core/browser";
import { CredentialsForm } from "../components/credentials-form";
import { StandalonePage } from "../components/ui";
import { errorMessage } from "../lib/errors";
import { redirectIfSignedIn } from "../lib/session.server";
import "../features/account/signup.css";

export const meta: MetaFunction = () => [{ title: "Sign up · Rehook" }];

export async function loader(args: LoaderFunctionArgs) {
  redirectIfSignedIn(args);
  const invite = new URL(args.request.url).searchParams.get("invite");
  return args.context.caller.auth.signupPolicy({ invite });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const email = String(form.get("email") ?? "");
  const invite = form.get("invite");
  try {
    await context.caller.auth.signUp({ email, password: String(form.get("password") ?? ""), invite: typeof invite === "string" ? invite : null });
  } catch (error) {
    return data({ error: errorMessage(error), email }, { status: 400 });
  }
  return redirect(safeRedirectPath(form.get("next")), 303);
}

/** Why this page shows no form (sign-up closed, by invitation, or a link that cannot be used), or null. */
function refusal(policy: ReturnType<typeof useLoaderData<typeof loader>>): { title: string; message: string } | null {
  if (policy.mode === "closed") return { title: "Sign-up is closed", message: SIGNUP_CLOSED_MESSAGE };
  if (policy.mode !== "invite") return null;
  if (policy.invite === null) return { title: "Sign-up is by invitation", message: INVITE_REQUIRED_MESSAGE };
  if (policy.invite !== "open") return { title: "This invite cannot be used", message: inviteRefusal(policy.invite) };
  return null;
}

export default function Signup() {
  const policy = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const [params] = useSearchParams();
  const refused = refusal(policy);
  if (refused) {
    return (
      <StandalonePage auth title={refused.title}>
        <p className="signup-refusal" data-testid="signup-refusal">
          {refused.message}
        </p>
        <p className="muted small">
          Already have an account? <Link to="/login">Log in</Link>
        </p>
      </StandalonePage>
    );
  }
  return (
    <CredentialsForm
      mode="signup"
      error={result?.error}
      email={result?.email}
      next={params.get("next") ?? undefined}
      invite={policy.mode === "invite" ? (params.get("invite") ?? undefined) : undefined}
    />
  );
}
