import { redirect, type LoaderFunctionArgs } from "@remix-run/node";

/**
 * Whether this navigation comes from one of our own pages (or the user's own address bar):
 * Sec-Fetch-Site says so in every current browser; without it, a same-origin Referer (our
 * Referrer-Policy is same-origin, so our pages send one). A link on another site is neither.
 */
function fromOurOwnPage(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site) return site === "same-origin" || site === "none";
  const referer = request.headers.get("referer");
  try {
    return referer !== null && new URL(referer).origin === new URL(request.url).origin;
  } catch {
    return false;
  }
}

/**
 * GET /auth/oidc?next=… (the login page's "Sign in with …" link): starts a single sign-on and
 * sends the browser to the identity provider. A link rather than a form post: the browser holds
 * every redirect that follows a form submission to the page's `form-action 'self'`, so the
 * redirect to the provider (and whatever hosts the provider itself redirects through) would
 * be blocked; a link's navigation is not. Only our own pages start one: a navigation from
 * another site goes back to the login page, which says to use its button. What makes the callback safe (state, nonce and
 * PKCE bound to this browser's cookie) is the same either way.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  // A fixed code the login page turns into a sentence (nothing from the request is reflected).
  if (!fromOurOwnPage(request)) return redirect("/login?sso_error=foreign_start", 303);
  const url = new URL(request.url);
  // A path longer than any of ours is no path of ours: the dashboard's home instead.
  const next = url.searchParams.get("next");
  try {
    const { redirectTo } = await context.caller.auth.ssoStart({ next: next && next.length <= 2048 ? next : null, dashboardOrigin: url.origin });
    return redirect(redirectTo, 303);
  } catch (error) {
    const code = (error as { code?: string }).code;
    return redirect(`/login?sso_error=${code === "NOT_FOUND" ? "provider" : "unreachable"}`, 303);
  }
}

/** The form post of earlier versions' login page (a page still open from before an upgrade): back to the login page, which now has the link. */
export function action() {
  return redirect("/login", 303);
}
