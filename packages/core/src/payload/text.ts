import { decodeUtf8Text } from "../payload-view.js";

/** The bytes without a UTF-8 sequence cut at their end (a slice taken at a byte count). */
export function withoutPartialUtf8(bytes: Uint8Array): Uint8Array {
  let lead = bytes.length - 1;
  while (lead >= 0 && bytes.length - lead <= 3 && (bytes[lead]! & 0xc0) === 0x80) lead -= 1;
  if (lead < 0) return bytes;
  const byte = bytes[lead]!;
  const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return lead + length > bytes.length ? bytes.subarray(0, lead) : bytes;
}

/**
 * The first `chars` characters of some bytes when they are text (valid UTF-8 without NUL),
 * `cut` when there is more; undefined for binary content. Reads at most 4 bytes a character.
 */
export function textPreview(bytes: Uint8Array, chars: number): { text: string; cut: boolean } | undefined {
  const sliced = bytes.length > chars * 4 ? withoutPartialUtf8(bytes.subarray(0, chars * 4)) : bytes;
  const text = decodeUtf8Text(sliced);
  if (text === undefined) return undefined;
  const characters = Array.from(text.slice(0, chars * 2)).slice(0, chars).join("");
  return { text: characters, cut: characters.length < text.length || sliced.length < bytes.length };
}
