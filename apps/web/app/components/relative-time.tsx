import { localTime, relativeTime, toDate, utcTime } from "../lib/format";
import { useHydrated, useNow } from "./hooks";

/** "5m ago", with the exact time (in the viewer's time zone) on hover. */
export function RelativeTime({ value, className }: { value: Date | string; className?: string }) {
  const date = toDate(value);
  const now = useNow();
  const hydrated = useHydrated();
  const exact = hydrated ? localTime(date) : utcTime(date);
  const valid = !Number.isNaN(date.getTime());
  return (
    <time dateTime={valid ? date.toISOString() : undefined} title={exact} className={className} suppressHydrationWarning>
      {relativeTime(date, now)}
    </time>
  );
}
