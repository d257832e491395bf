/** A percent-decoded path segment, or undefined when its escapes are malformed (decodeURIComponent would throw). */
export function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export const MALFORMED_PATH_MESSAGE = "the path has a malformed percent-escape";
