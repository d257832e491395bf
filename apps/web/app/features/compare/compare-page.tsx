import { Form, Link, useLoaderData } from "@remix-run/react";
import { Alert, Breadcrumb, Card, EmptyCard, PageHeader } from "../../components/ui";
import { utcTime } from "../../lib/format";
import type { ComparePageData, loadComparePage } from "./compare-data.server";
import { ComparisonView } from "./comparison-view";
import "./compare.css";

/** A picker's line: what it was, where it went (the destination's name, or custom URL, staging, local), when, its status and URL. */
const optionText = (option: ComparePageData["options"][number]) =>
  `${option.label} · ${option.destinationLabel}${option.edited ? " · edited" : ""} · ${utcTime(option.at)} · ${option.status ?? "no response"} · ${option.destinationUrl ?? "no URL"}`;

/** Two of an event's responses side by side, picked by the form at the top. */
export function CompareResponsesPage() {
  const { eventId, eventType, options, left, right, comparison, problem } = useLoaderData<typeof loadComparePage>();
  return (
    <>
      <PageHeader
        eyebrow={<Breadcrumb parent={eventType} to={`/events/${eventId}`} current="Compare responses" />}
        title="Compare responses"
        description="Two of this event’s responses side by side: the original delivery and retries to each of its destinations, and its replays."
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

function Picker({ name, label, value, options }: { name: string; label: string; value: string | null; options: ComparePageData["options"] }) {
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
