import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useActionData } from "@remix-run/react";
import { CredentialsForm } from "../components/credentials-form";

export const meta: MetaFunction = () => [{ title: "Sign up · Rehook" }];

export function loader({ context, request }: LoaderFunctionArgs) {
  if (context.user && request.method === "GET") throw redirect("/");
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const email = String(form.get("email") ?? "");
  try {
    await context.caller.auth.signUp({ email, password: String(form.get("password") ?? "") });
  } catch (error) {
    return data({ error: (error as Error).message, email }, { status: 400 });
  }
  return redirect("/", 303);
}

export default function Signup() {
  const result = useActionData<typeof action>();
  return <CredentialsForm mode="signup" error={result?.error} email={result?.email} />;
}
