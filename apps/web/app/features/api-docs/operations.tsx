import { HttpStatus } from "../../components/badges";
import { Card } from "../../components/ui";
import type { OperationView } from "../../lib/openapi";
import { CurlExample, FieldTable } from "./field-table";
import { documentedAnswers, ResponseExample, ResponseFields } from "./response-details";

function MethodBadge({ method }: { method: string }) {
  return <span className={`api-method api-method-${method.toLowerCase()}`}>{method}</span>;
}

/** Every operation, one line each, linking to its card. */
export function OperationIndex({ operations }: { operations: OperationView[] }) {
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

/** One operation: its parameters, body, responses (with the success answer's fields), a curl example and an example answer. */
export function Operation({ operation }: { operation: OperationView }) {
  const answers = documentedAnswers(operation);
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
                <span className="api-response-description">{response.description}</span>
              </li>
            ))}
          </ul>
          {answers.map((response) => (
            <ResponseFields key={response.status} operation={operation} response={response} />
          ))}
        </div>
        <div className="api-examples">
          <CurlExample operation={operation} />
          {answers.map((response) => (
            <ResponseExample key={response.status} operation={operation} response={response} />
          ))}
        </div>
      </div>
    </Card>
  );
}
