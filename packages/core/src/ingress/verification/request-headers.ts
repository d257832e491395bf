import { headerValue, type HeaderList } from "../../headers.js";

/** The first value of a header (any case), or undefined when absent or blank: a blank signature is a missing one. */
export function presentHeader(headers: HeaderList, name: string): string | undefined {
  const value = headerValue(headers, name)?.trim();
  return value ? value : undefined;
}
