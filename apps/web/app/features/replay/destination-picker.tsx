import { Badge } from "../../components/badges";
import { FormError } from "../../components/ui";
import type { DeliveryState, DestinationChoice } from "../../lib/replay";

/** How the event's delivery to each destination stands, in the picker's words. */
const DELIVERY_WORDS: Record<DeliveryState, { text: string; tone: "failed" | "delivered" | "pending" | "neutral" }> = {
  failed: { text: "failed", tone: "failed" },
  resolved: { text: "failed · resolved", tone: "neutral" },
  delivered: { text: "delivered", tone: "delivered" },
  pending: { text: "pending", tone: "pending" },
  paused: { text: "paused", tone: "pending" },
  filtered: { text: "filtered out", tone: "neutral" },
  none: { text: "not sent there", tone: "neutral" },
};

/**
 * The Original target's destinations when the endpoint has several: one checkbox each, with
 * the event's delivery there and the URL a replay requests; the failed ones checked first.
 * Each checked destination gets its own attempt.
 */
export function DestinationPicker({
  destinations,
  checked,
  error,
  disabled,
  onChange,
}: {
  destinations: DestinationChoice[];
  checked: string[];
  error: string | null;
  disabled: boolean;
  onChange: (checked: string[]) => void;
}) {
  return (
    <fieldset className="fieldset destination-picker" disabled={disabled} data-testid="destination-picker" aria-describedby={error ? "destination-picker-error" : undefined}>
      <legend>Send to</legend>
      <ul className="destination-choices">
        {destinations.map((destination) => {
          const id = `replay-destination-${destination.id}`;
          const words = DELIVERY_WORDS[destination.delivery];
          return (
            <li key={destination.id} className={`destination-choice${destination.url ? "" : " is-unavailable"}`} data-delivery={destination.delivery}>
              <input
                id={id}
                type="checkbox"
                name="destinationId"
                value={destination.id}
                checked={checked.includes(destination.id)}
                disabled={destination.url === null}
                aria-describedby={`${id}-url`}
                onChange={(event) => onChange(event.target.checked ? [...checked, destination.id] : checked.filter((each) => each !== destination.id))}
              />
              <label htmlFor={id} className="destination-choice-text">
                <span className="destination-choice-name">
                  {destination.name}{" "}
                  <Badge tone={words.tone} dot={false} data-testid="destination-delivery">
                    {words.text}
                  </Badge>
                </span>
                <small id={`${id}-url`} className="mono break muted">
                  {destination.url ?? destination.reason}
                </small>
              </label>
            </li>
          );
        })}
      </ul>
      <div id="destination-picker-error">
        <FormError message={error} />
      </div>
    </fieldset>
  );
}

/** Staging's destination when the endpoint has several: the staging host goes on this one's URL. */
export function StagingDestinationField({
  destinations,
  value,
  disabled,
  onChange,
}: {
  destinations: DestinationChoice[];
  value: string;
  disabled: boolean;
  onChange: (destinationId: string) => void;
}) {
  return (
    <div className="field replay-staging-destination">
      <label htmlFor="replay-staging-destination">Staging host on</label>
      <select id="replay-staging-destination" value={value} disabled={disabled} onChange={(event) => onChange(event.target.value)}>
        {destinations.map((destination) => (
          <option key={destination.id} value={destination.id} disabled={destination.stagingUrl === null}>
            {destination.name}
          </option>
        ))}
      </select>
    </div>
  );
}
