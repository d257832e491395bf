import "./header-table.css";
/** One editable header row. */
export interface EditableHeader {
  name: string;
  value: string;
}

/**
 * A table of editable name/value header rows with Remove and Add buttons: the replay editor's
 * headers and a custom response's. `fieldNames` also posts the rows with a form, as parallel lists.
 */
export function HeaderTable<Row extends EditableHeader>({
  caption,
  rows,
  keyOf,
  fieldNames,
  namePlaceholder,
  rowTestId,
  onEdit,
  onRemove,
  onAdd,
}: {
  caption: string;
  rows: Row[];
  keyOf: (row: Row, index: number) => string | number;
  fieldNames?: { name: string; value: string };
  namePlaceholder?: string;
  rowTestId?: string;
  onEdit: (index: number, part: "name" | "value", text: string) => void;
  onRemove: (index: number) => void;
  onAdd: () => void;
}) {
  const field = (index: number, part: "name" | "value", row: Row) => (
    <input
      type="text"
      className="mono"
      name={fieldNames?.[part]}
      aria-label={`Header ${index + 1} ${part}`}
      autoComplete="off"
      spellCheck={false}
      placeholder={part === "name" ? namePlaceholder : undefined}
      value={row[part]}
      onChange={(event) => onEdit(index, part, event.target.value)}
    />
  );
  return (
    <>
      <table className="replay-edit-headers">
        <caption className="muted small">{caption}</caption>
        {rows.length > 0 ? (
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Value</th>
              <th scope="col" aria-label="Remove" />
            </tr>
          </thead>
        ) : null}
        <tbody>
          {rows.map((row, index) => (
            <tr key={keyOf(row, index)} data-testid={rowTestId}>
              <td>{field(index, "name", row)}</td>
              <td>{field(index, "value", row)}</td>
              <td>
                <button type="button" className="button secondary small" aria-label={`Remove header ${row.name || index + 1}`} onClick={() => onRemove(index)}>
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" className="button secondary small" onClick={onAdd}>
        Add header
      </button>
    </>
  );
}
