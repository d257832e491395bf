import { Link, isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { useId, type ReactNode } from "react";
import { testEventCurl } from "../lib/format";
import { CopyButton } from "./copy-button";

/** A page outside the signed-in shell (log in, sign up, fatal errors): one centred card with the logo and a title. */
export function StandalonePage({ title, auth = false, children }: { title: ReactNode; auth?: boolean; children: ReactNode }) {
  return (
    <main className={`centered${auth ? " auth" : ""}`}>
      <div className={`card narrow${auth ? " auth-card" : ""}`}>
        <div className="brand brand-large">
          <span className="logo" aria-hidden="true">
            ↺
          </span>{" "}
          Rehook
        </div>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

/** The page title with an optional line of context and actions on the right. */
export function PageHeader({
  title,
  description,
  actions,
  eyebrow,
  beside,
}: {
  title: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  eyebrow?: ReactNode;
  /** Shown next to the title, outside the heading (a status badge, the live indicator). */
  beside?: ReactNode;
}) {
  return (
    <header className="page-header">
      <div className="page-header-text">
        {eyebrow ? <div className="eyebrow">{eyebrow}</div> : null}
        {beside ? (
          <div className="title-row">
            <h1>{title}</h1>
            {beside}
          </div>
        ) : (
          <h1>{title}</h1>
        )}
        {description ? <p className="page-description">{description}</p> : null}
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </header>
  );
}

/** The page header's trail: a link to the parent page, then the current page. */
export function Breadcrumb({ parent, to, current, currentClassName }: { parent: string; to: string; current: ReactNode; currentClassName?: string }) {
  return (
    <nav aria-label="Breadcrumb" className="breadcrumb">
      <Link to={to}>{parent}</Link>
      <span aria-hidden="true">/</span>
      <span aria-current="page" className={currentClassName}>
        {current}
      </span>
    </nav>
  );
}

/** One term and its value in a `dl.kv` list. */
export function Detail({
  term,
  wide = false,
  className,
  suppressHydrationWarning,
  children,
}: {
  term: string;
  /** Spans the whole row of a details grid on small screens. */
  wide?: boolean;
  /** On the value. */
  className?: string;
  suppressHydrationWarning?: boolean;
  children: ReactNode;
}) {
  return (
    <div className={wide ? "wide" : undefined}>
      <dt>{term}</dt>
      <dd className={className} suppressHydrationWarning={suppressHydrationWarning}>
        {children}
      </dd>
    </div>
  );
}

/** A card with a heading row. */
export function Card({
  title,
  description,
  actions,
  children,
  className,
  headingLevel = 2,
  id,
}: {
  title?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
  headingLevel?: 2 | 3;
  id?: string;
}) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  const headingId = useId();
  return (
    <section className={`card${className ? ` ${className}` : ""}`} aria-labelledby={title ? headingId : undefined} id={id}>
      {title || actions ? (
        <div className="card-header">
          <div>
            {title ? (
              <Heading id={headingId} className="card-title">
                {title}
              </Heading>
            ) : null}
            {description ? <p className="card-description">{description}</p> : null}
          </div>
          {actions ? <div className="card-actions">{actions}</div> : null}
        </div>
      ) : null}
      {children}
    </section>
  );
}

/** A value people copy (a URL, a key): monospace, wraps on small screens, with a Copy button. */
export function CopyField({ value, testId }: { value: string; testId?: string }) {
  return (
    <div className="copy-field">
      <code className="copy-field-value" data-testid={testId}>
        {value}
      </code>
      <CopyButton text={value} />
    </div>
  );
}

/** The first-run hint: a curl command that sends a sample event to the capture URL. */
export function TestEventSnippet({ webhookUrl, compact = false }: { webhookUrl: string; compact?: boolean }) {
  const command = testEventCurl(webhookUrl);
  return (
    <div className={`snippet${compact ? " snippet-compact" : ""}`}>
      <div className="snippet-bar">
        <span className="snippet-lang">Terminal</span>
        <CopyButton text={command} className="button ghost small on-dark" />
      </div>
      <pre className="code snippet-code" data-testid="test-curl" tabIndex={0} aria-label="curl command that sends a test event">
        {command}
      </pre>
    </div>
  );
}

/** A friendly "nothing here yet" block. */
export function EmptyState({ icon, title, children, actions }: { icon?: ReactNode; title: string; children?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="empty-state">
      {icon ? (
        <div className="empty-icon" aria-hidden="true">
          {icon}
        </div>
      ) : null}
      <h2 className="empty-title">{title}</h2>
      {children ? <div className="empty-body">{children}</div> : null}
      {actions ? <div className="empty-actions">{actions}</div> : null}
    </div>
  );
}

/** A message box: red for errors, green for success (the icon comes from the CSS). */
export function Alert({ tone, role, testId, children }: { tone: "error" | "success"; role?: "alert" | "status"; testId?: string; children: ReactNode }) {
  return (
    <p className={`alert alert-${tone}`} role={role} data-testid={testId}>
      {children}
    </p>
  );
}

/** An inline form error, read out as soon as it appears. */
export function FormError({ message }: { message: string | undefined | null }) {
  return message ? (
    <Alert tone="error" role="alert">
      {message}
    </Alert>
  ) : null;
}

/** An inline success note ("Saved"). */
export function FormSuccess({ message }: { message: string | undefined | null }) {
  return message ? (
    <Alert tone="success" role="status">
      {message}
    </Alert>
  ) : null;
}

/** An EmptyState on a card of its own (a page or list with nothing in it). */
export function EmptyCard({ className, ...empty }: Parameters<typeof EmptyState>[0] & { className?: string }) {
  return (
    <div className={`card${className ? ` ${className}` : ""}`}>
      <EmptyState {...empty} />
    </div>
  );
}

/** Errors inside the signed-in shell: the nav stays, the page says what went wrong. */
export function RouteError() {
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  const title = notFound ? "Not found" : isRouteErrorResponse(error) ? `Error ${error.status}` : "Something went wrong";
  const detail = notFound
    ? "This page does not exist, or it belongs to someone else, or it was deleted."
    : isRouteErrorResponse(error) && typeof error.data === "string" && error.data
      ? error.data
      : "Reload the page to try again. If it keeps happening, check the server logs.";
  return (
    <EmptyCard className="error-card" icon={notFound ? "?" : "!"} title={title} actions={<Link to="/" className="button secondary">Back to endpoints</Link>}>
      <p>{detail}</p>
    </EmptyCard>
  );
}

export function Icon({ name }: { name: "plus" | "arrow-right" | "activity" | "trash" | "key" | "shield" | "bell" | "inbox" | "external" | "refresh" | "send" | "lock" | "users" }) {
  const paths: Record<typeof name, ReactNode> = {
    plus: <path d="M8 3v10M3 8h10" />,
    "arrow-right": <path d="M3 8h10M9 4l4 4-4 4" />,
    activity: <path d="M1.5 8h3l2-5 3 10 2-5h3" />,
    trash: <path d="M2.5 4h11M6 4V2.5h4V4M4 4l.7 9.5h6.6L12 4" />,
    key: (
      <>
        <circle cx="5" cy="11" r="2.5" />
        <path d="M6.8 9.2L13 3M11 5l1.5 1.5" />
      </>
    ),
    shield: <path d="M8 1.5l5.5 2v4c0 3.5-2.5 6-5.5 7-3-1-5.5-3.5-5.5-7v-4z" />,
    bell: <path d="M4 11V7a4 4 0 0 1 8 0v4l1.5 1.5h-11zM6.5 14h3" />,
    inbox: <path d="M1.5 9.5l2-6.5h9l2 6.5v4h-13zM1.5 9.5h4l1 1.5h3l1-1.5h4" />,
    external: <path d="M9 2.5h4.5V7M13.5 2.5L7 9M11 9.5v4H2.5V5h4" />,
    refresh: <path d="M13 3v3.5H9.5M13 6.5A5.5 5.5 0 1 0 13.5 10" />,
    send: <path d="M14 2L7 9M14 2l-4.5 12L7 9 2 6.5z" />,
    lock: (
      <>
        <rect x="3" y="7" width="10" height="7" rx="1.5" />
        <path d="M5.5 7V5a2.5 2.5 0 0 1 5 0v2" />
      </>
    ),
    users: (
      <>
        <circle cx="6" cy="5.5" r="2.5" />
        <path d="M1.5 14c0-2.5 2-4.5 4.5-4.5s4.5 2 4.5 4.5M10.5 3.2a2.5 2.5 0 0 1 0 4.6M12 9.8c1.5.6 2.5 2.2 2.5 4.2" />
      </>
    ),
  };
  return (
    <svg className="icon" viewBox="0 0 16 16" width="16" height="16" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      {paths[name]}
    </svg>
  );
}
