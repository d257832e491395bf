/**
 * Content-Type and Content-Disposition values, read leniently: a webhook's headers are
 * whatever its sender wrote, so nothing here throws.
 */

/** The media type without parameters, lower-cased ("application/json"); "" when there is none. */
export function mediaType(contentType: string | null | undefined): string {
  if (!contentType) return "";
  return contentType.split(";", 1)[0]!.trim().toLowerCase();
}

/**
 * The parameters after the first ";" of a header value (`type/sub; a=1; b="x;y"`), names
 * lower-cased, quoted values unquoted (backslash escapes honoured), the first of a repeated
 * name kept. A RFC 8187 `name*=UTF-8''…` value is decoded and wins over plain `name`.
 */
export function headerParameters(value: string): Map<string, string> {
  const found = new Map<string, string>();
  const extended = new Map<string, string>();
  let at = value.indexOf(";");
  if (at < 0) return found;
  at += 1;
  while (at < value.length) {
    while (at < value.length && (value[at] === " " || value[at] === "\t" || value[at] === ";")) at += 1;
    const equals = value.indexOf("=", at);
    const semicolon = value.indexOf(";", at);
    if (equals < 0 || (semicolon >= 0 && semicolon < equals)) {
      // A parameter without a value ("form-data; name"): skip it.
      at = semicolon < 0 ? value.length : semicolon + 1;
      continue;
    }
    const name = value.slice(at, equals).trim().toLowerCase();
    at = equals + 1;
    while (value[at] === " " || value[at] === "\t") at += 1;
    let parameter = "";
    if (value[at] === '"') {
      at += 1;
      while (at < value.length && value[at] !== '"') {
        if (value[at] === "\\" && at + 1 < value.length) at += 1;
        parameter += value[at];
        at += 1;
      }
      at += 1; // the closing quote
      const next = value.indexOf(";", at);
      at = next < 0 ? value.length : next + 1;
    } else {
      const next = value.indexOf(";", at);
      parameter = value.slice(at, next < 0 ? value.length : next).trim();
      at = next < 0 ? value.length : next + 1;
    }
    if (!name) continue;
    if (name.endsWith("*")) {
      const decoded = decodeExtendedValue(parameter);
      if (decoded !== undefined && !extended.has(name.slice(0, -1))) extended.set(name.slice(0, -1), decoded);
    } else if (!found.has(name)) {
      found.set(name, parameter);
    }
  }
  for (const [name, decoded] of extended) found.set(name, decoded);
  return found;
}

/** RFC 8187: `charset'language'percent-encoded`; UTF-8 and ISO-8859-1 are understood. */
function decodeExtendedValue(value: string): string | undefined {
  const match = /^([^']*)'[^']*'(.*)$/.exec(value);
  if (!match) return undefined;
  const charset = match[1]!.toLowerCase();
  if (charset !== "utf-8" && charset !== "iso-8859-1") return undefined;
  const bytes = percentDecodeBytes(match[2]!, false);
  return charset === "utf-8" ? new TextDecoder("utf-8").decode(bytes) : String.fromCharCode(...bytes);
}

const HEX = /^[0-9a-fA-F]{2}$/;
const encoder = new TextEncoder();

/**
 * Percent-decoding that never throws: `%XX` becomes that byte, anything else (a stray "%"
 * included) its UTF-8 bytes; with `plusIsSpace`, "+" is a space (forms and query strings).
 */
export function percentDecodeBytes(text: string, plusIsSpace: boolean): Uint8Array {
  const bytes: number[] = [];
  for (let at = 0; at < text.length; at += 1) {
    const ch = text[at]!;
    if (ch === "%" && HEX.test(text.slice(at + 1, at + 3))) {
      bytes.push(Number.parseInt(text.slice(at + 1, at + 3), 16));
      at += 2;
    } else if (ch === "+" && plusIsSpace) {
      bytes.push(0x20);
    } else {
      const code = ch.charCodeAt(0);
      if (code < 0x80) bytes.push(code);
      else {
        // A surrogate pair is encoded whole.
        const end = code >= 0xd800 && code < 0xdc00 && at + 1 < text.length ? at + 2 : at + 1;
        for (const byte of encoder.encode(text.slice(at, end))) bytes.push(byte);
        at = end - 1;
      }
    }
  }
  return Uint8Array.from(bytes);
}
