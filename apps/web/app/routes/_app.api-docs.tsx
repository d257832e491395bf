import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import type { ReactNode } from "react";
import { Badge, HttpStatus } from "../components/badges";
import { CopyButton } from "../components/copy-button";
import { DataTable } from "../components/data-table";
import { Card, CopyField, EmptyCard, Icon, PageHeader, RouteError } from "../components/ui";
import { readApiReference, type FieldView, type OperationView } from "../lib/openapi";
import { requireUser } from "../lib/session.server";

export const meta: MetaFunction = () => [{ title: "API reference · Rehook" }];

/** Linked from the page for people who want the raw document. */
const DOCUMENT_PATH = "/api/v1/openapi.json";

type Reference =
  | { state: "ready"; baseUrl: string; version: string; operations: OperationView[] }
  | { state: "disabled"; baseUrl: string }
  | { state: "error"; baseUrl: string; message: string };

/** The OpenAPI document is built in this process (never fetched over HTTP); null means PUBLIC_API_ENABLED=false. */
export function loader({ context, request }: LoaderFunctionArgs): Reference {
  requireUser(context, request);
  // request.url's origin is one of our configured origins (src/remix-handler.ts), never the client's Host.
  const baseUrl = `${new URL(request.url).origin}/api/v1`;
  const document = context.apiDocument();
  if (!document) return { state: "disabled", baseUrl };
  try {
    const reference = readApiReference(document, baseUrl);
    return { state: "ready", baseUrl, version: reference.version, operations: reference.operations };
  } catch (error) {
    return { state: "error", baseUrl, message: `the API document could not be read: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export default function ApiDocs() {
  const reference = useLoaderData<typeof loader>();
  return (
    <>
      <PageHeader
        title="API reference"
        beside={
          <Badge tone="preview" dot={false} title="The API may still change in small ways">
            Preview
          </Badge>
        }
        description="Read your events, replay them and manage endpoints over HTTP, from scripts and CI."
        actions={
          reference.state === "disabled" ? null : (
            <a href={DOCUMENT_PATH} className="button secondary" target="_blank" rel="noreferrer">
              OpenAPI document
              <Icon name="external" />
            </a>
          )
        }
      />
      {reference.state === "disabled" ? (
        <EmptyCard icon={<Icon name="shield" />} title="The public API is turned off on this server" className="api-disabled">
          <p data-testid="api-disabled">
            The operator set <code className="inline-code">PUBLIC_API_ENABLED=false</code>, so everything under <code className="inline-code">/api/v1</code>{" "}
            answers 404. Ask them to turn it on if you need it; the dashboard works as usual.
          </p>
        </EmptyCard>
      ) : reference.state === "error" ? (
        <EmptyCard icon="!" title="Could not load the API description" className="error-card">
          <p>{reference.message}.</p>
          <p>
            Reload the page to try again, or open <a href={DOCUMENT_PATH}>the raw document</a>.
          </p>
        </EmptyCard>
      ) : (
        <>
          <Overview baseUrl={reference.baseUrl} version={reference.version} />
          <OperationIndex operations={reference.operations} />
          {reference.operations.map((operation) => (
            <Operation key={`${operation.method} ${operation.path}`} operation={operation} />
          ))}
        </>
      )}
    </>
  );
}

function Overview({ baseUrl, version }: { baseUrl: string; version: string }) {
  return (
    <Card title="Basics" className="api-overview">
      <dl className="api-basics">
        <Basic term="Base URL">
          <CopyField value={baseUrl} testId="api-base-url" />
        </Basic>
        <Basic term="Authentication">
          <p>
            Send an API key with every request: <code className="inline-code">Authorization: Bearer pk_live_…</code>. Make one in{" "}
            <Link to="/settings#api-keys">Settings → API keys</Link> (or with <code className="inline-code">rehook apikey create</code>). A missing, unknown or
            revoked key gets a 401.
          </p>
        </Basic>
        <Basic term="Errors">
          <p>
            Every error has the same JSON shape, with a stable machine-readable <code className="inline-code">code</code>; <code className="inline-code">details</code>{" "}
            only comes with validation errors (the issues found):
          </p>
          <pre className="code-block api-error-shape">{'{"error": {"code", "message", "details"?}}'}</pre>
        </Basic>
        <Basic term="Version">
          <p>
            Every answer carries the <code className="inline-code">Rehook-Api-Version{version ? `: ${version}` : ""}</code> header. The API is a preview: fields
            may still be added.
          </p>
        </Basic>
        <Basic term="Rate limit">
          <p>
            Requests are counted per key, per minute. Over the limit the answer is <strong>429</strong> with a{" "}
            <code className="inline-code">Retry-After</code> header: wait that many seconds, then try again.
          </p>
        </Basic>
      </dl>
    </Card>
  );
}

function Basic({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="api-basic">
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function MethodBadge({ method }: { method: string }) {
  return <span className={`api-method api-method-${method.toLowerCase()}`}>{method}</span>;
}

function OperationIndex({ operations }: { operations: OperationView[] }) {
  return (
    <nav className="card api-index" aria-label="Operations">
      <h2 className="card-title">
        Operations <span className="count-pill">{operations.length}</span>
      </h2>
      <ul>
        {operations.map((operation) => (
          <li key={operation.anchor}>
            <a href={`#${operation.anchor}`}>
              <MethodBadge method={operation.method} />
              <code className="api-index-path">{operation.path}</code>
              <span className="api-index-summary">{operation.summary}</span>
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Operation({ operation }: { operation: OperationView }) {
  return (
    <Card
      id={operation.anchor}
      className="api-operation"
      title={
        <>
          <MethodBadge method={operation.method} />
          <code className="api-path" data-testid="api-path">
            {operation.path}
          </code>
        </>
      }
      description={operation.summary}
    >
      <div className="api-operation-body">
        <div className="api-operation-details">
          <h3 className="subheading">Parameters</h3>
          {operation.parameters.length === 0 ? (
            <p className="muted small">None.</p>
          ) : (
            <FieldTable caption={`Parameters of ${operation.method} ${operation.path}`} fields={operation.parameters} showIn />
          )}

          {operation.body ? (
            <>
              <h3 className="subheading">
                Request body <span className="api-body-type">application/json</span>
              </h3>
              {operation.body.fields.length === 0 ? (
                <p className="muted small">A JSON value.</p>
              ) : (
                <FieldTable caption={`Request body of ${operation.method} ${operation.path}`} fields={operation.body.fields} />
              )}
            </>
          ) : null}

          <h3 className="subheading">Responses</h3>
          <ul className="api-responses">
            {operation.responses.map((response) => (
              <li key={response.status}>
                <HttpStatus code={Number(response.status)} />
                <span>{response.description}</span>
              </li>
            ))}
          </ul>
        </div>
        <CurlExample operation={operation} />
      </div>
    </Card>
  );
}

function FieldTable({ caption, fields, showIn = false }: { caption: string; fields: FieldView[]; showIn?: boolean }) {
  return (
    <div className="table-wrap">
      <DataTable className="api-table" caption={caption} columns={showIn ? ["Name", "In", "Required", "Type"] : ["Name", "Required", "Type"]}>
        {fields.map((field) => (
          <tr key={`${field.in}:${field.name}`}>
            <td data-label="Name" className="api-field-name">
              <code>{field.name}</code>
            </td>
            {showIn ? (
              <td data-label="In" className="api-field-in">
                {field.in}
              </td>
            ) : null}
            <td data-label="Required" className="api-field-required">
              {field.required ? <span className="api-required">Required</span> : <span className="muted">Optional</span>}
            </td>
            <td data-label="Type">
              <div className="api-field-type">
                <code className="api-type">{field.type}</code>
                {field.enumValues.length > 0 ? (
                  <span className="api-enum">
                    One of{" "}
                    {field.enumValues.map((value) => (
                      <code key={value} className="chip">
                        {value}
                      </code>
                    ))}
                  </span>
                ) : null}
                {field.range ? <span className="api-constraint">{field.range}</span> : null}
                {field.defaultValue !== null ? (
                  <span className="api-constraint">
                    Default <code>{field.defaultValue}</code>
                  </span>
                ) : null}
                {field.description ? <span className="api-description">{field.description}</span> : null}
              </div>
            </td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}

function CurlExample({ operation }: { operation: OperationView }) {
  return (
    <div className="api-example">
      <h3 className="subheading">Example</h3>
      <div className="snippet">
        <div className="snippet-bar">
          <span className="snippet-lang">curl</span>
          <CopyButton text={operation.curl} className="button ghost small on-dark" accessibleLabel={`Copy the curl example for ${operation.method} ${operation.path}`} />
        </div>
        <pre className="code snippet-code" data-testid="curl-example" tabIndex={0} aria-label={`curl example for ${operation.method} ${operation.path}`}>
          {operation.curl}
        </pre>
      </div>
      <p className="hint">
        Set <code className="inline-code">REHOOK_API_KEY</code> to your key first{operation.path.includes("{") ? ", and replace the {placeholders} with ids" : ""}.
      </p>
    </div>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}
