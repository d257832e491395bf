import { paint, printable } from "./terminal-text.js";

// The readable output of the list commands: fixed columns, each cell made printable and cut
// to its column's width, so one row is one line whatever the data holds.

export interface Column<Row> {
  header: string;
  /** Characters: longer values are cut with an ellipsis; the last column is not padded. */
  width: number;
  value(row: Row): string;
  align?: "left" | "right";
  /** An SGR colour for the cell (31 red, 32 green, 33 yellow), when colours are on. */
  color?(row: Row): number | undefined;
}

/** `text` in at most `width` characters: cut with an ellipsis when longer. */
export function fit(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join("")}…`;
}

function pad(text: string, width: number, align: "left" | "right"): string {
  const missing = Math.max(0, width - [...text].length);
  return align === "right" ? `${" ".repeat(missing)}${text}` : `${text}${" ".repeat(missing)}`;
}

/** The rows under a header line, two spaces between columns, one line per row (no trailing newline). */
export function renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[], color: boolean): string {
  const line = (cells: Array<{ text: string; colour?: number }>) =>
    cells
      .map(({ text, colour }, index) => {
        const column = columns[index]!;
        const last = index === columns.length - 1;
        const padded = last && column.align !== "right" ? text : pad(text, column.width, column.align ?? "left");
        return paint(color, colour, padded);
      })
      .join("  ")
      .trimEnd();
  const header = line(columns.map((column) => ({ text: fit(column.header, column.width) })));
  const body = rows.map((row) => line(columns.map((column) => ({ text: fit(printable(column.value(row)), column.width), colour: column.color?.(row) }))));
  return [header, ...body].join("\n");
}

/** An instant as the tables show it: UTC to the second, ISO 8601. */
export function instant(date: Date | null): string {
  return date ? `${date.toISOString().slice(0, 19)}Z` : "-";
}

/** An event's or attempt's status in its colour: delivered green, failed red, the waiting ones yellow. */
export function statusColor(status: string): number | undefined {
  if (status === "delivered") return 32;
  if (status === "failed") return 31;
  if (status === "pending" || status === "captured") return 33;
  return undefined;
}
