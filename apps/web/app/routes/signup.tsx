import { data, redirect, type ActionFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useActionData, useSearchParams } from "@remix-run/react";
import { safeRedirectPath } from "@rehook/core/browser";
import { CredentialsForm } from "../components/credentials-form";
import { redirectIfSignedIn } from "../lib/session.server";

export const meta: MetaFunction = () => [{ title: "Sign up · Rehook" }];

export const loader = redirectIfSignedIn;

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const email = String(form.get("email") ?? "");
  try {
    await context.caller.auth.signUp({ email, password: String(form.get("password") ?? "") });
  } catch (error) {
    return data({ error: (error as Error).message, email }, { status: 400 });
  }
  return redirect(safeRedirectPath(form.get("next")), 303);
}

export default function Signup() {
  const result = useActionData<typeof action>();
  const [params] = useSearchParams();
  return <CredentialsForm mode="signup" error={result?.error} email={result?.email} next={params.get("next") ?? undefined} />;
}
