import { CopyButton } from "../../components/copy-button";
import { DataTable } from "../../components/data-table";
import type { FieldView, OperationView } from "../../lib/openapi";

export function FieldTable({ caption, fields, showIn = false }: { caption: string; fields: FieldView[]; showIn?: boolean }) {
  return (
    <div className="table-wrap">
      <DataTable className="api-table stacks-on-phone" caption={caption} columns={showIn ? ["Name", "In", "Required", "Type"] : ["Name", "Required", "Type"]}>
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

export function CurlExample({ operation }: { operation: OperationView }) {
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
