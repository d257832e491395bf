import { Link } from "@remix-run/react";
import type { ReactNode } from "react";
import { HttpStatus } from "../../components/badges";
import { Card } from "../../components/ui";
import { formatBytes, formatLatency, utcTime } from "../../lib/format";
import { EditedBadge } from "../replay/replay-table";
import type { Side } from "./compare-data.server";

/**
 * One side's status, latency, time, where it went (the destination's name, or custom URL,
 * staging, local; then the URL actually requested, sub-path and query included) and body
 * size; a replay links to its page, and an edited one says so.
 */
export function SideSummary({ side, which, statusChanged }: { side: Side; which: "left" | "right"; statusChanged: boolean }) {
  const link = side.kind === "replay" ? `/replays/${side.ref.slice("replay:".length)}` : null;
  return (
    <Card
      title={
        <>
          <span className="compare-side">{which === "left" ? "Left" : "Right"}</span> {link ? <Link to={link}>{side.label}</Link> : side.label}
          {side.edited ? (
            <>
              {" "}
              <EditedBadge />
            </>
          ) : null}
        </>
      }
      className="compare-summary"
    >
      <dl className="kv" data-testid={`compare-${which}`}>
        <Row term="Status">
          <span data-testid={`compare-${which}-status`}>
            <HttpStatus code={side.status} />
          </span>
          {statusChanged ? <span className="diff-flag">changed</span> : null}
        </Row>
        <Row term="Latency">{formatLatency(side.latencyMs)}</Row>
        <Row term="At">{utcTime(side.at)}</Row>
        <Row term="Sent to">
          <span className="fg" data-testid={`compare-${which}-destination-label`}>
            {side.destinationLabel}
          </span>
        </Row>
        <Row term="URL">
          <span className="mono break" data-testid={`compare-${which}-destination`}>
            {side.destinationUrl ?? "—"}
          </span>
        </Row>
        <Row term="Body">{formatBytes(side.bodyBytes)}</Row>
        {side.error ? (
          <Row term="Error">
            <span className="break">{side.error}</span>
          </Row>
        ) : null}
      </dl>
    </Card>
  );
}

function Row({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

export function BinarySide({ term, side }: { term: string; side: { size: number; sha256: string } }) {
  return (
    <div className="wide">
      <dt>{term}</dt>
      <dd className="mono break">
        {formatBytes(side.size)}, SHA-256 {side.sha256}
      </dd>
    </div>
  );
}
