/** Request or response headers as sent: order and duplicates kept, names in their original case. */
export type HeaderList = Array<[name: string, value: string]>;

/** Pairs up node's req.rawHeaders ([name, value, name, value, ...]). */
export function headerListFromRaw(raw: readonly string[]): HeaderList {
  const list: HeaderList = [];
  for (let i = 0; i + 1 < raw.length; i += 2) list.push([raw[i]!, raw[i + 1]!]);
  return list;
}

/** First value of a header, matched case-insensitively. */
export function headerValue(headers: HeaderList, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of headers) if (key.toLowerCase() === wanted) return value;
  return undefined;
}
