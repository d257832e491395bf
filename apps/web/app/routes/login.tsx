import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { INVITE_REQUIRED_MESSAGE, isSsoFailure, safeRedirectPath, SIGNUP_CLOSED_MESSAGE, SSO_FAILURES } from "@rehook/core/browser";
import { CredentialsForm } from "../components/credentials-form";
import { redirectIfSignedIn } from "../lib/session.server";

export const meta: MetaFunction = () => [{ title: "Log in · Rehook" }];

/** Who may sign up here: the page offers a sign-up link only when anyone may. */
export async function loader(args: LoaderFunctionArgs) {
  redirectIfSignedIn(args);
  const { mode } = await args.context.caller.auth.signupPolicy({ invite: null });
  const options = await args.context.caller.auth.signInOptions();
  // A failed single sign-on comes back with its code; the page says what it means.
  const ssoError = new URL(args.request.url).searchParams.get("sso_error");
  return { signup: mode, ...options, ssoError: isSsoFailure(ssoError) ? SSO_FAILURES[ssoError] : null };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const email = String(form.get("email") ?? "");
  try {
    await context.caller.auth.logIn({ email, password: String(form.get("password") ?? "") });
  } catch (error) {
    const status = (error as { code?: string }).code === "TOO_MANY_REQUESTS" ? 429 : 400;
    return data({ error: (error as Error).message, email }, { status });
  }
  // The session cookie is added to this redirect by the server (src/remix-handler.ts).
  return redirect(safeRedirectPath(form.get("next")), 303);
}

export default function Login() {
  const { signup, sso, passwordLogin, ssoError } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const [params] = useSearchParams();
  const noSignup = signup === "closed" ? SIGNUP_CLOSED_MESSAGE : signup === "invite" ? INVITE_REQUIRED_MESSAGE : undefined;
  return (
    <CredentialsForm
      mode="login"
      error={result?.error ?? ssoError ?? undefined}
      email={result?.email}
      next={params.get("next") ?? undefined}
      noSignup={noSignup}
      sso={sso}
      passwordLogin={passwordLogin}
    />
  );
}
