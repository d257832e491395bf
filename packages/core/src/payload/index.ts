// The payload inspector's decoding, pure and browser-safe: the server lists multipart parts,
// the dashboard decodes forms, query strings and XML, and both name the raw download.
export { headerParameters, mediaType, percentDecodeBytes } from "./media-type.js";
export { decodeFormComponent, formRows, MAX_FORM_ROWS, queryRows, type FormRow, type FormRows } from "./form.js";
export { listMultipartParts, multipartBoundary, type MultipartListing, type MultipartPart } from "./multipart.js";
export { looksLikeXml, prettyXml } from "./xml.js";
export { classifyText, type TextBodyKind } from "./classify.js";
export { parseJsonPrefix, type JsonPrefix } from "./json-prefix.js";
export { textPreview, withoutPartialUtf8 } from "./text.js";
export { fileExtension, rawBodyFileName } from "./file-name.js";
export {
  ancestorPointers,
  initialExpansion,
  isContainer,
  jsonContainers,
  jsonEntries,
  jsonScalarText,
  pointerStep,
  prettyJson,
  searchJson,
  type JsonContainer,
  type JsonMatch,
} from "./json.js";
