import { redirect, type LoaderFunctionArgs } from "@remix-run/node";

/**
 * GET /auth/oidc/callback: where the identity provider sends the browser back. Signs in and
 * goes where the sign-in was started for (a path on this dashboard only), or back to the
 * login page with the failure's code (the page says what it means; nothing is echoed).
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  const outcome = await context.caller.auth.ssoFinish({
    query: url.search.slice(1),
    dashboardOrigin: url.origin,
    cookieHeader: request.headers.get("cookie"),
  });
  // The session cookie (or the cleared pending one) goes out with this redirect (src/remix-handler.ts).
  return redirect(outcome.ok ? outcome.next : `/login?sso_error=${outcome.failure}`, 303);
}
