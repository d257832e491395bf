import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { HealthBadge } from "../components/badges";
import { PausedBadge } from "../components/delivery";
import { RelativeTime } from "../components/relative-time";
import { SubmitButton, TextField, UrlField } from "../components/form-fields";
import { useResetAfterCreate } from "../components/hooks";
import { RoleLock, RoleNote } from "../components/role-gate";
import { useTeam } from "../components/use-team";
import { Card, CopyField, EmptyCard, FormError, FormSuccess, Icon, PageHeader, RouteError } from "../components/ui";
import { errorMessage } from "../lib/errors";
import { deliveryCounts, plural } from "../lib/format";
import { can, whyNot } from "../lib/roles";
import { requireUser } from "../lib/session.server";
import "../features/endpoints/endpoints.css";

export const meta: MetaFunction = () => [{ title: "Endpoints · Rehook" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  requireUser(context, request);
  return { endpoints: await context.caller.endpoints.list() };
}

export async function action({ request, context }: ActionFunctionArgs) {
  requireUser(context, request);
  const form = await request.formData();
  const name = String(form.get("name") ?? "");
  const destination = String(form.get("destinationUrl") ?? "").trim();
  try {
    const endpoint = await context.caller.endpoints.create({ name, destinationUrl: destination === "" ? null : destination });
    return { ok: true as const, created: { id: endpoint.id, name: endpoint.name } };
  } catch (error) {
    return { ok: false as const, error: errorMessage(error), values: { name, destinationUrl: destination } };
  }
}

export default function Endpoints() {
  const { endpoints } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const creating = navigation.state === "submitting" && navigation.formAction === "/?index";
  const createdId = result?.ok ? result.created.id : null;
  const formRef = useResetAfterCreate(createdId);
  const { role } = useTeam();
  const creator = { allowed: can(role, "developer"), note: whyNot(role, "developer", "Creating endpoints") };

  return (
    <>
      <PageHeader
        title="Endpoints"
        description="Each endpoint gives you a capture URL. Point a webhook sender at it: Rehook stores every request and forwards it to your destination."
      />

      <Card className="create-card" title="New endpoint" description="You get a capture URL right away; the destination can be added later.">
        {creator.note ? <RoleNote>{creator.note}</RoleNote> : null}
        <RoleLock needed="developer">
          <Form method="post" className="create-form" ref={formRef} noValidate>
            <TextField
              id="endpoint-name"
              label="Name"
              name="name"
              required
              maxLength={100}
              autoComplete="off"
              placeholder="Stripe production"
              defaultValue={result && !result.ok ? result.values.name : undefined}
            />
            <UrlField
              id="endpoint-destination"
              label={
                <>
                  Destination URL <span className="optional">optional</span>
                </>
              }
              hint="Leave blank to capture only"
              name="destinationUrl"
              placeholder="https://api.example.com/webhooks"
              defaultValue={result && !result.ok ? result.values.destinationUrl : undefined}
            />
            <div className="create-submit">
              <SubmitButton busy={creating} busyLabel="Creating…" icon={<Icon name="plus" />}>
                Create endpoint
              </SubmitButton>
            </div>
          </Form>
        </RoleLock>
        {result && !result.ok ? <FormError message={result.error} /> : null}
        {result?.ok ? (
          <FormSuccess
            message={`Endpoint “${result.created.name}” created. Send it a request to see it in Activity.`}
          />
        ) : null}
      </Card>

      {endpoints.length === 0 ? (
        <EmptyCard icon={<Icon name="inbox" />} title="Create your first endpoint">
          <p>
            An <strong>endpoint</strong> is a unique URL that receives webhooks for you. Give it to Stripe, GitHub or any other sender: Rehook
            captures every request, lets you inspect headers and payloads, and — if you add a destination URL — forwards each one to your app
            and records the answer.
          </p>
          <p>{creator.allowed ? "Fill in the form above: you get a capture URL straight away." : "This team has none yet: a developer, admin or owner of the team can create one."}</p>
        </EmptyCard>
      ) : (
        <section aria-labelledby="endpoint-list-title" className="endpoint-list-section">
          <div className="section-heading">
            <h2 id="endpoint-list-title">Endpoint list</h2>
            <span className="count-pill">{endpoints.length}</span>
          </div>
          <ul className="endpoint-list">
            {endpoints.map((endpoint) => (
              <li key={endpoint.id} data-testid="endpoint-row" className={`endpoint-row${endpoint.id === createdId ? " is-new" : ""}`}>
                <div className="endpoint-row-head">
                  <Link to={`/endpoints/${endpoint.id}`} className="endpoint-name">
                    {endpoint.name}
                  </Link>
                  <span className="endpoint-badges">
                    {endpoint.forwardingPaused ? <PausedBadge reason={endpoint.pausedReason} /> : null}
                    <HealthBadge state={endpoint.health.state} rate={endpoint.health.successRate} captureOnly={!endpoint.destinationUrl} />
                  </span>
                </div>
                <CopyField value={endpoint.webhookUrl} testId="capture-url" />
                <div className="endpoint-row-meta">
                  <span className="endpoint-destination">
                    <Icon name="arrow-right" />
                    {endpoint.destinationUrl ? (
                      <span className="mono truncate" title={endpoint.destinationUrl} data-testid="destination">
                        {endpoint.destinationUrl}
                      </span>
                    ) : (
                      <span className="muted" data-testid="destination">
                        Capture only
                      </span>
                    )}
                  </span>
                  <span className="endpoint-stats">
                    <span className="endpoint-events" data-testid="event-count">
                      {plural(endpoint.eventCount, "event")}
                    </span>
                    <span className="endpoint-last-event" data-testid="last-event">
                      {endpoint.lastEventAt ? (
                        <>
                          Last received <RelativeTime value={endpoint.lastEventAt} />
                        </>
                      ) : (
                        "Nothing received yet"
                      )}
                    </span>
                    {endpoint.destinationUrl ? (
                      <span className="endpoint-counts" data-testid="counts">
                        {deliveryCounts(endpoint)}
                      </span>
                    ) : null}
                  </span>
                </div>
              </li>
            ))}
          </ul>
          <p className="muted small list-footnote">{plural(endpoints.length, "endpoint")} · health counts finished deliveries only</p>
        </section>
      )}
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}
