import { localTime, relativeTime, toDate, utcTime } from "../lib/format";
import { useHydrated, useNow } from "./hooks";

/** The exact time: in UTC for the server render and hydration, in the viewer's locale and time zone after. */
export function useExactTime(value: Date | string): string {
  const hydrated = useHydrated();
  const date = toDate(value);
  return hydrated ? localTime(date) : utcTime(date);
}

/** "5m ago", with the exact time (in the viewer's time zone) on hover. */
export function RelativeTime({ value, className }: { value: Date | string; className?: string }) {
  const date = toDate(value);
  const now = useNow();
  const exact = useExactTime(date);
  const valid = !Number.isNaN(date.getTime());
  return (
    <time dateTime={valid ? date.toISOString() : undefined} title={exact} className={className} suppressHydrationWarning>
      {relativeTime(date, now)}
    </time>
  );
}
