import { redirect, type AppLoadContext, type LoaderFunctionArgs } from "@remix-run/node";

/** The signed-in user, or a redirect to /login that brings the user back afterwards. */
export function requireUser(context: AppLoadContext, request: Request): { id: string; email: string } {
  if (context.user) return context.user;
  const url = new URL(request.url);
  const back = url.pathname + url.search;
  throw redirect(back === "/" ? "/login" : `/login?next=${encodeURIComponent(back)}`);
}

/** The loader of /login and /signup: someone signed in already goes to the dashboard. */
export function redirectIfSignedIn({ context, request }: LoaderFunctionArgs): null {
  if (context.user && request.method === "GET") throw redirect("/");
  return null;
}
