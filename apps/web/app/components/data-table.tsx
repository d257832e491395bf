import type { ReactNode } from "react";

/** A column heading: its text, or its content and a class (`num` for right-aligned figures). */
export type Column = string | { label: ReactNode; className?: string };

/** A `.table` with a caption for screen readers and one header row; the rows are the children. */
export function DataTable({ className, caption, columns, children }: { className: string; caption: ReactNode; columns: Column[]; children: ReactNode }) {
  return (
    <table className={`table ${className}`}>
      <caption className="sr-only">{caption}</caption>
      <thead>
        <tr>
          {columns.map((column, index) => {
            const { label, className: columnClass } = typeof column === "string" ? { label: column, className: undefined } : column;
            return (
              <th key={index} scope="col" className={columnClass}>
                {label}
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
