import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import type { ReactNode } from "react";
import { HttpStatus } from "../components/badges";
import { Alert, Breadcrumb, Card, EmptyCard, PageHeader, RouteError } from "../components/ui";
import { hasCode, throwIfNotFound } from "../lib/errors";
import { formatBytes, formatLatency, utcTime } from "../lib/format";
import { requireUser } from "../lib/session.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data ? `Compare responses · ${data.eventType} · Rehook` : "Compare responses · Rehook" }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  requireUser(context, request);
  const id = params.id ?? "";
  let options;
  try {
    options = await context.caller.events.responses({ id });
  } catch (error) {
    throwIfNotFound(error);
    throw error;
  }
  const event = await context.caller.events.get({ id }).then((found) => ({ eventType: found.eventType, method: found.method }));
  const search = new URL(request.url).searchParams;
  // Unchosen: the first response (usually the original delivery) against the newest.
  const left = search.get("left") ?? options[0]?.ref ?? null;
  const right = search.get("right") ?? options.at(-1)?.ref ?? null;
  let comparison = null;
  let problem: string | null = null;
  if (left && right && options.length >= 2) {
    try {
      comparison = await context.caller.events.compare({ id, left, right });
    } catch (error) {
      // A stale or mistyped choice in the URL: say so and keep the pickers.
      if (!hasCode(error, "NOT_FOUND") && !hasCode(error, "BAD_REQUEST")) throw error;
      problem = error instanceof Error ? error.message : "That response cannot be compared.";
    }
  }
  return { eventId: id, eventType: event.eventType, options, left, right, comparison, problem };
}

type Data = ReturnType<typeof useLoaderData<typeof loader>>;
type Comparison = NonNullable<Data["comparison"]>;
type Side = Comparison["left"];

const optionText = (option: Data["options"][number]) =>
  `${option.label} · ${utcTime(new Date(option.at))} · ${option.status ?? "no response"} · ${option.destinationUrl ?? "no destination"}`;

export default function CompareResponsesPage() {
  const { eventId, eventType, options, left, right, comparison, problem } = useLoaderData<typeof loader>();
  return (
    <>
      <PageHeader
        eyebrow={<Breadcrumb parent={eventType} to={`/events/${eventId}`} current="Compare responses" />}
        title="Compare responses"
        description="Two of this event’s responses side by side: its original delivery, its retries and its replays."
      />
      {options.length < 2 ? (
        <EmptyCard title="Nothing to compare yet">
          This event has {options.length === 0 ? "no response" : "one response"} so far. Retry or replay it, then compare the answers.
        </EmptyCard>
      ) : (
        <>
          <Card className="compare-pickers">
            <Form method="get" className="compare-form">
              <Picker name="left" label="Left" value={left} options={options} />
              <Picker name="right" label="Right" value={right} options={options} />
              <div className="compare-form-actions">
                <button type="submit" className="button primary">
                  Compare
                </button>
                {left && right ? (
                  <Link to={`?left=${encodeURIComponent(right)}&right=${encodeURIComponent(left)}`} className="button secondary">
                    Swap
                  </Link>
                ) : null}
              </div>
            </Form>
          </Card>
          {problem ? (
            <Alert tone="error" role="alert" testId="compare-problem">
              {problem}
            </Alert>
          ) : null}
          {comparison ? <ComparisonView comparison={comparison} /> : null}
        </>
      )}
    </>
  );
}

function Picker({ name, label, value, options }: { name: string; label: string; value: string | null; options: Data["options"] }) {
  return (
    <div className="field compare-picker">
      <label htmlFor={`compare-${name}`}>{label} response</label>
      <select id={`compare-${name}`} name={name} defaultValue={value ?? undefined} key={value}>
        {options.map((option) => (
          <option key={option.ref} value={option.ref}>
            {optionText(option)}
          </option>
        ))}
      </select>
    </div>
  );
}

function ComparisonView({ comparison }: { comparison: Comparison }) {
  const { left, right, headers, body } = comparison;
  const changedHeaders = headers.filter((header) => header.kind !== "same").length;
  return (
    <>
      <div className="compare-columns">
        <SideSummary side={left} which="left" statusChanged={comparison.statusChanged} />
        <SideSummary side={right} which="right" statusChanged={comparison.statusChanged} />
      </div>

      <Card title="Headers" description={headerSummary(headers.length, changedHeaders, left, right)} className="compare-headers">
        {headers.length > 0 ? (
          <div className="table-wrap">
            <table className="compare-table">
              <caption className="sr-only">Response headers, left against right</caption>
              <thead>
                <tr>
                  <th scope="col" aria-label="Change" />
                  <th scope="col">Name</th>
                  <th scope="col">Left</th>
                  <th scope="col">Right</th>
                </tr>
              </thead>
              <tbody>
                {headers.map((header) => (
                  <tr key={header.name.toLowerCase()} className={`diff-${header.kind}`} data-testid="header-diff-row" data-kind={header.kind}>
                    <td className="diff-mark" title={header.kind}>
                      {MARKS[header.kind]}
                      <span className="sr-only">{header.kind}</span>
                    </td>
                    <th scope="row" className="mono break">
                      {header.name}
                    </th>
                    <td className="mono break">{header.left ?? <span className="muted">—</span>}</td>
                    <td className="mono break">{header.right ?? <span className="muted">—</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </Card>

      <Card title="Body" description={bodySummary(comparison)} className="compare-body">
        {body.kind === "binary" ? (
          <dl className="kv details-grid" data-testid="binary-diff">
            <BinarySide term="Left" side={body.left} />
            <BinarySide term="Right" side={body.right} />
          </dl>
        ) : body.lines.length === 0 ? (
          <p className="muted">Neither response has a body.</p>
        ) : (
          <div className="diff-wrap">
            <table className="line-diff">
              <caption className="sr-only">Body line diff: removed lines are only on the left, added lines only on the right</caption>
              <tbody>
                {body.lines.map((line, index) => (
                  <tr key={index} className={`diff-${line.kind}`} data-testid="body-diff-line" data-kind={line.kind}>
                    <td className="line-number">{line.left ?? ""}</td>
                    <td className="line-number">{line.right ?? ""}</td>
                    <td className="diff-mark">
                      {MARKS[line.kind]}
                      {line.kind !== "same" ? <span className="sr-only">{line.kind}</span> : null}
                    </td>
                    <td className="line-text">{line.text}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {body.kind === "lines" && body.cut ? (
          <p className="note" data-testid="diff-cut">
            The bodies are long: the {body.cut}. Open each response to see all of it.
          </p>
        ) : null}
        {left.bodyTruncated || right.bodyTruncated ? <p className="note">Only the beginning of a truncated response body was stored, so only that is compared.</p> : null}
      </Card>
    </>
  );
}

const MARKS = { same: " ", added: "+", removed: "−", changed: "~" } as const;

function SideSummary({ side, which, statusChanged }: { side: Side; which: "left" | "right"; statusChanged: boolean }) {
  const link = side.kind === "replay" ? `/replays/${side.ref.slice("replay:".length)}` : null;
  return (
    <Card
      title={
        <>
          <span className="compare-side">{which === "left" ? "Left" : "Right"}</span> {link ? <Link to={link}>{side.label}</Link> : side.label}
        </>
      }
      className="compare-summary"
    >
      <dl className="kv" data-testid={`compare-${which}`}>
        <Row term="Status">
          <span data-testid={`compare-${which}-status`}>
            <HttpStatus code={side.status} />
          </span>
          {statusChanged ? <span className="diff-flag">changed</span> : null}
        </Row>
        <Row term="Latency">{formatLatency(side.latencyMs)}</Row>
        <Row term="At">{utcTime(new Date(side.at))}</Row>
        <Row term="Destination">
          <span className="mono break">{side.destinationUrl ?? "—"}</span>
        </Row>
        <Row term="Body">{formatBytes(side.bodyBytes)}</Row>
        {side.error ? (
          <Row term="Error">
            <span className="break">{side.error}</span>
          </Row>
        ) : null}
      </dl>
    </Card>
  );
}

function Row({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function BinarySide({ term, side }: { term: string; side: { size: number; sha256: string } }) {
  return (
    <div className="wide">
      <dt>{term}</dt>
      <dd className="mono break">
        {formatBytes(side.size)}, SHA-256 {side.sha256}
      </dd>
    </div>
  );
}

function headerSummary(total: number, changed: number, left: Side, right: Side): string {
  if (!left.headersRecorded || !right.headersRecorded) return "Not compared: a local replay records only the status and body the browser could read.";
  if (total === 0) return "Neither response has headers.";
  return changed === 0 ? "The same headers on both." : `${changed} of ${total} headers differ (names compared case-insensitively).`;
}

function bodySummary({ body }: Comparison): string {
  if (body.kind === "binary") return `Binary: ${body.equal ? "equal" : "differ"} by SHA-256.`;
  const kind = body.json ? "JSON, keys sorted and indented alike" : "Text";
  return `${kind}: ${body.equal ? "the same on both" : "lines marked − are only on the left, + only on the right"}.`;
}

export function ErrorBoundary() {
  return <RouteError />;
}
