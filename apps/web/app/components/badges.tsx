import type { ComponentPropsWithoutRef } from "react";
import { httpTone, reasonPhrase, signatureReasonText, type SignatureReason } from "@rehook/core/browser";
import { formatPercent, HEALTH_LABELS, isEventStatus, STATUS_LABELS, type HealthState } from "../lib/format";

/** A pill in one of the badge tones (`badge-…` in styles/base/badges.css), with a coloured dot unless `dot` is false. */
export function Badge({ tone, dot = true, children, ...span }: ComponentPropsWithoutRef<"span"> & { tone: string; dot?: boolean }) {
  return (
    <span className={`badge badge-${tone}`} {...span}>
      {dot ? <span className="badge-dot" aria-hidden="true" /> : null}
      {children}
    </span>
  );
}

/** An event's status: a coloured dot and the word, never colour alone. */
export function StatusBadge({ status, title }: { status: string; title?: string }) {
  const known = isEventStatus(status);
  return (
    <Badge tone={known ? status : "neutral"} title={title}>
      {known ? STATUS_LABELS[status] : status}
    </Badge>
  );
}

/**
 * An endpoint's health with its success rate ("Healthy · 98%"). Before any finished delivery
 * (the API's "capturing") it says why: "Capture only" without a destination, "No deliveries
 * yet" with one.
 */
export function HealthBadge({ state, rate, captureOnly }: { state: HealthState; rate: number | null; captureOnly: boolean }) {
  const showRate = state !== "capturing" && rate !== null;
  const waiting = state === "capturing";
  const label = waiting ? (captureOnly ? "Capture only" : "No deliveries yet") : HEALTH_LABELS[state];
  const title = showRate
    ? `${formatPercent(rate)} of finished deliveries succeeded`
    : captureOnly
      ? "No destination: events are only captured"
      : "Nothing delivered or failed yet";
  return (
    <Badge tone={waiting && !captureOnly ? "neutral" : `health-${state}`} data-health={state} title={title}>
      {label}
      {showRate ? <span className="badge-extra"> · {formatPercent(rate)}</span> : null}
    </Badge>
  );
}

/** An HTTP status code with its standard words ("202 Accepted"), green for 2xx, amber for 3xx, red otherwise. */
export function HttpStatus({ code }: { code: number | null }) {
  if (code === null)
    return (
      <Badge tone="failed" dot={false}>
        No response
      </Badge>
    );
  return (
    <Badge tone={`http-${httpTone(code)}`} data-http-status={code}>
      {code} <span className="badge-extra">{reasonPhrase(code)}</span>
    </Badge>
  );
}

const SIGNATURE_BADGES = {
  valid: { label: "Signed", title: "Signature valid: signed with the endpoint's verification secret" },
  // Events checked before reasons were recorded say no more than this.
  invalid: { label: "Invalid signature", title: "Signature invalid: it did not verify under the endpoint's signature rule" },
  missing: { label: "Unsigned", title: "Signature missing: the request carried no signature to check" },
} as const;

/**
 * What an event's signature check found ("Signed", "Invalid signature", "Unsigned"), its
 * tooltip saying why an invalid one failed (the reason's sentence); nothing when its endpoint checks none.
 */
export function SignatureBadge({ signature, reason = null }: { signature: keyof typeof SIGNATURE_BADGES | null; reason?: SignatureReason | null }) {
  if (signature === null) return null;
  const { label } = SIGNATURE_BADGES[signature];
  const title = signature === "invalid" && reason !== null ? `Signature invalid: ${signatureReasonText(reason)}` : SIGNATURE_BADGES[signature].title;
  return (
    <Badge tone={`signature-${signature}`} data-testid="signature-badge" data-signature={signature} data-signature-reason={reason ?? undefined} title={title} aria-label={title}>
      {label}
    </Badge>
  );
}
