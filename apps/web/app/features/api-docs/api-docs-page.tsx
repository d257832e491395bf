import { useLoaderData } from "@remix-run/react";
import { Badge } from "../../components/badges";
import { EmptyCard, Icon, PageHeader } from "../../components/ui";
import type { loadApiDocs } from "./api-docs-data.server";
import { Operation, OperationIndex } from "./operations";
import { Overview } from "./overview";
import "./api-docs.css";

/** Linked from the page for people who want the raw document. */
const DOCUMENT_PATH = "/api/v1/openapi.json";

/** The public API's reference, read from the OpenAPI document the server builds. */
export function ApiDocsPage() {
  const reference = useLoaderData<typeof loadApiDocs>();
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
