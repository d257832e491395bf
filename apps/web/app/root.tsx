import type { LinksFunction, MetaFunction } from "@remix-run/node";
import { Links, Meta, Outlet, Scripts, ScrollRestoration, isRouteErrorResponse, useRouteError } from "@remix-run/react";
import stylesheet from "./styles.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: stylesheet }];

export const meta: MetaFunction = () => [{ title: "Rehook" }, { name: "color-scheme", content: "light dark" }];

export function Layout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  const title = isRouteErrorResponse(error) ? (error.status === 404 ? "Not found" : `Error ${error.status}`) : "Something went wrong";
  const detail = isRouteErrorResponse(error) ? (typeof error.data === "string" ? error.data : "") : "Reload the page, or go back to your endpoints.";
  return (
    <main className="centered">
      <div className="card narrow">
        <h1>{title}</h1>
        {detail ? <p className="muted">{detail}</p> : null}
        <p>
          <a href="/">Back to endpoints</a>
        </p>
      </div>
    </main>
  );
}
