import type { LinksFunction, MetaFunction } from "@remix-run/node";
import { Links, Meta, Outlet, Scripts, ScrollRestoration, isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { useEffect } from "react";
import { StandalonePage } from "./components/ui";
import { useNonce } from "./lib/nonce";
import tokensStylesheet from "./styles/tokens.css?url";
import baseStylesheet from "./styles/base.css?url";

const FAVICON =
  "data:image/svg+xml," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#4f46e5"/><text x="16" y="23" font-size="20" font-family="system-ui,sans-serif" font-weight="700" text-anchor="middle" fill="#fff">↺</text></svg>',
  );

// Every page: the design tokens, then the base layer (reset, layout and the shared building
// blocks). Each component or feature imports its own sheet, which Remix links after these on
// the pages that use it; modules imported here (components/ui) must not import CSS, or their
// sheet would come before these.
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: tokensStylesheet },
  { rel: "stylesheet", href: baseStylesheet },
  { rel: "icon", href: FAVICON, type: "image/svg+xml" },
];

export const meta: MetaFunction = () => [
  { title: "Rehook" },
  { name: "color-scheme", content: "light dark" },
  { name: "theme-color", content: "#f6f7f9", media: "(prefers-color-scheme: light)" },
  { name: "theme-color", content: "#0b0d12", media: "(prefers-color-scheme: dark)" },
];

export function Layout({ children }: { children: React.ReactNode }) {
  const nonce = useNonce();
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
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  // Marks the document once React has taken it over. Child effects run first, so every key
  // handler of the first page is attached by then; browser tests wait for this mark before
  // pressing keys, since a key pressed earlier is lost.
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  const title = isRouteErrorResponse(error) ? (error.status === 404 ? "Not found" : `Error ${error.status}`) : "Something went wrong";
  const detail = isRouteErrorResponse(error) ? (typeof error.data === "string" ? error.data : "") : "Reload the page, or go back to your endpoints.";
  return (
    <StandalonePage title={title}>
      {detail ? <p className="muted">{detail}</p> : null}
      <p>
        <a href="/" className="button secondary">
          Back to endpoints
        </a>
      </p>
    </StandalonePage>
  );
}
