import { HttpStatus } from "../../components/badges";
import type { OperationView, ResponseView } from "../../lib/openapi";
import { FieldTable } from "./field-table";

/** The answers that have a body worth showing: the success ones (errors share the shape under Basics). */
export function documentedAnswers(operation: OperationView): ResponseView[] {
  return operation.responses.filter((response) => response.fields.length > 0 || response.example !== null);
}

/** What a success answer's body holds, folded: an event's answer has some 40 fields. */
export function ResponseFields({ operation, response }: { operation: OperationView; response: ResponseView }) {
  if (response.fields.length === 0) return null;
  return (
    <details className="api-response-fields" data-testid="response-fields">
      <summary>
        Fields of the {response.status} answer <span className="count-pill">{response.fields.length}</span>
      </summary>
      <FieldTable caption={`Fields of the ${response.status} answer of ${operation.method} ${operation.path}`} fields={response.fields} />
    </details>
  );
}

/** An example body of a success answer, as the document gives it (tenant data never reaches it: it is built by the server). */
export function ResponseExample({ operation, response }: { operation: OperationView; response: ResponseView }) {
  if (response.example === null) return null;
  const json = response.contentType === "application/json" || response.contentType === "text/event-stream";
  return (
    <div className="api-response-example">
      <h3 className="subheading api-response-heading">
        Example answer <HttpStatus code={Number(response.status)} />
        {response.contentType ? <span className="api-body-type">{response.contentType}</span> : null}
      </h3>
      {response.contentType === "text/event-stream" ? <p className="hint">Each message&apos;s data:</p> : null}
      <pre
        className={`code-block api-example-body${json ? " json" : ""}`}
        data-testid="response-example"
        tabIndex={0}
        aria-label={`Example ${response.status} answer of ${operation.method} ${operation.path}`}
      >
        {response.example}
      </pre>
    </div>
  );
}
