import type { ReactNode } from "react";
import { formatLatency } from "../lib/format";

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

/** Text cut to its cell's width, whole in its tooltip. */
export function Truncated({ text, className }: { text: string; className?: string }) {
  return (
    <span className={className ? `${className} truncate` : "truncate"} title={text}>
      {text}
    </span>
  );
}

/** The Endpoint cell of an event or replay row. */
export function EndpointCell({ name }: { name: string }) {
  return (
    <td data-label="Endpoint" className="cell-endpoint">
      <Truncated text={name} />
    </td>
  );
}

/** The Latency cell of an event or replay row (right-aligned). */
export function LatencyCell({ ms }: { ms: number | null | undefined }) {
  return (
    <td data-label="Latency" className="num cell-latency">
      {formatLatency(ms)}
    </td>
  );
}
