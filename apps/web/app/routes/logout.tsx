import { redirect, type ActionFunctionArgs } from "@remix-run/node";

export async function action({ context }: ActionFunctionArgs) {
  if (context.user) await context.caller.auth.logOut();
  return redirect("/login", 303);
}

export function loader() {
  return redirect("/");
}
