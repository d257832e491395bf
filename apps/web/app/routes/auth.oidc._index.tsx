import { redirect, type ActionFunctionArgs } from "@remix-run/node";

/**
 * POST /auth/oidc (the login page's "Sign in with …" button): starts a single sign-on and
 * sends the browser to the identity provider. A POST, so that only our own pages start one
 * (the server refuses cross-site form posts); a GET goes back to the login page.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const next = form.get("next");
  try {
    const { redirectTo } = await context.caller.auth.ssoStart({ next: typeof next === "string" ? next : null, dashboardOrigin: new URL(request.url).origin });
    return redirect(redirectTo, 303);
  } catch (error) {
    const code = (error as { code?: string }).code;
    return redirect(`/login?sso_error=${code === "NOT_FOUND" ? "provider" : "unreachable"}`, 303);
  }
}

export function loader() {
  return redirect("/login");
}
