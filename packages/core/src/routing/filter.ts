import { z } from "zod";
import { UserError } from "../errors.js";

/**
 * Routing filters: whether one destination of an endpoint gets a captured request. A filter
 * is a JSON object in MongoDB query style over the request's document
 * `{method, path, query, headers, body}` (see FilterDocument), evaluated by hand here: the
 * operator set is small and closed (no $regex, no $where, no code), so a filter saved by
 * anybody costs at most (filter size x document size) to evaluate and cannot hang.
 *
 * Shape:
 * - A filter object's keys are field paths or the logical operators $and, $or (a non-empty
 *   array of filters) and $not (one filter); all keys must hold. `{}` matches everything.
 *   Logical operators are allowed only where a filter is (the top level and inside them).
 * - A field path is dotted and starts at method, path, query, headers or body:
 *   "body.data.object.amount", "body.items.0.sku". method, path and query are text and take
 *   no steps. After "headers." the rest is one header name, matched case-insensitively
 *   ("headers.X-GitHub-Event"; names may hold dots).
 * - A field's condition is an operator object (every key an operator, several all holding)
 *   or any other value, which means $eq. `{"body.x": {}}` therefore asks for an empty object.
 *   Field operators: $eq $ne $in $nin $gt $gte $lt $lte $exists $contains $startsWith
 *   $endsWith, and $not with an operator object: `{"body.amount": {"$not": {"$gt": 100}}}`.
 *
 * Reaching values: a step into an object reads its own key. A step into an array reads the
 * element when the step is a canonical index ("0", "12"); otherwise it reads that key of
 * every element that is an object (one level: arrays inside the array are not searched), so
 * "body.items.sku" reaches every item's sku. A path may so reach no value (missing), or many.
 *
 * Matching: the condition holds when any reached value satisfies it, and for all operators
 * but $exists and $contains a reached array also satisfies it when any of its elements does
 * (so $eq 3 matches [1, 3], and $eq [1, 3] matches it too).
 * - $eq: deep equality (arrays in order, objects with the same keys in any order). A
 *   missing field equals nothing, not even null: ask $exists for that.
 * - $ne, $nin: exactly the negations of $eq and $in, so a missing field is $ne anything.
 * - $in: equal to one of at most MAX_FILTER_IN_VALUES values.
 * - $gt $gte $lt $lte: numbers with numbers, strings with strings (UTF-16 code unit order);
 *   the operand must be one of the two, and mixed types never match.
 * - $exists: true when the path reaches some value (null included), false when none.
 * - $contains: a string that holds the operand text, or an array with an element deep-equal
 *   to the operand (only the array itself: ["a-b"] does not contain "a").
 * - $startsWith, $endsWith: strings only, with a string operand.
 * - $not: the inner condition fails, missing fields included (Mongo's reading).
 *
 * Limits, checked by parseFilter: MAX_FILTER_BYTES of JSON text (UTF-8), MAX_FILTER_DEPTH
 * levels of brackets, where the filter object is level 1 and every object or array inside it
 * (sub-filter, operator object, $in list, literal value) is one level deeper than its parent;
 * field paths of at most MAX_FILTER_PATH_LENGTH characters.
 *
 * Where a problem is: "filter", then each key or array index below it, joined by "." with
 * "." and "\" inside a key written "\." and "\\": "filter.$and.1.body\.amount.$gt". The zod
 * schema gives the same steps as an issue path array, without "filter".
 */

export const MAX_FILTER_BYTES = 16 * 1024;
export const MAX_FILTER_DEPTH = 8;
export const MAX_FILTER_PATH_LENGTH = 256;
export const MAX_FILTER_IN_VALUES = 1000;
/** Larger bodies are matched as text: parsing them would cost more than the capture should. */
export const DEFAULT_FILTER_JSON_BYTES = 10 * 1024 * 1024;

type FilterValue = null | boolean | number | string | readonly FilterValue[] | { readonly [key: string]: FilterValue };
/** A filter as saved (JSON); parseFilter checks an unknown value into one. */
export type RoutingFilter = { readonly [key: string]: FilterValue };

/** What a filter reads of a request. `body` is the parsed JSON, or else the text. */
export type FilterDocument = { method: string; path: string; query: string; headers: Record<string, string>; body: unknown };

export interface CompiledFilter {
  matches(doc: FilterDocument): boolean;
  /** Whether any condition reads the body: when not, the capture need not parse it. */
  readsBody: boolean;
}

export type ParsedFilter = { ok: true; filter: RoutingFilter } | { ok: false; path: string; message: string };

export interface FilterRequest {
  method: string;
  path: string;
  query: string;
  headers: ReadonlyArray<readonly [string, string]>;
  body: Uint8Array;
  /** Defaults to the content-type header. */
  contentType?: string | null;
}

type Step = string | number;
type Predicate = (doc: FilterDocument) => boolean;
type ValueTest = (value: unknown) => boolean;

class FilterProblem extends Error {
  readonly at: Step[];
  constructor(at: readonly Step[], message: string) {
    super(message);
    this.at = [...at];
  }
}

const LOGICAL_OPERATORS = new Set(["$and", "$or", "$not"]);
const FIELD_OPERATORS = new Set(["$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$exists", "$contains", "$startsWith", "$endsWith", "$not"]);
const DOCUMENT_FIELDS = new Set(["method", "path", "query", "headers", "body"]);
const TEXT_FIELDS = new Set(["method", "path", "query"]);
const CANONICAL_INDEX = /^(?:0|[1-9][0-9]*)$/;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const grouped = (n: number) => n.toLocaleString("en-US");

/** Checks a filter as it arrives (at save): JSON, the limits, then the grammar. */
export function parseFilter(value: unknown): ParsedFilter {
  try {
    compileChecked(value);
    return { ok: true, filter: value as RoutingFilter };
  } catch (error) {
    if (!(error instanceof FilterProblem)) throw error;
    return { ok: false, path: problemPath(error.at), message: error.message };
  }
}

/** The filter made ready to evaluate; throws a UserError when it would not pass parseFilter. */
export function compileFilter(filter: RoutingFilter): CompiledFilter {
  try {
    return compileChecked(filter);
  } catch (error) {
    if (!(error instanceof FilterProblem)) throw error;
    const path = problemPath(error.at);
    throw new UserError("validation_failed", `The routing filter is invalid at ${path}: ${error.message}.`, { path });
  }
}

/** parseFilter as a schema: the issue's message names where in the filter the problem is. */
export const routingFilterSchema = z.unknown().superRefine((value, context) => {
  try {
    compileChecked(value);
  } catch (error) {
    if (!(error instanceof FilterProblem)) throw error;
    // One sentence naming the place ("filter is invalid at filter.body\.a.$regex: …"): the issue stays on the filter field itself.
    context.addIssue({ code: "custom", message: `filter is invalid at ${problemPath(error.at)}: ${error.message}` });
  }
}) as z.ZodType<RoutingFilter, unknown>;

function problemPath(at: readonly Step[]): string {
  let path = "filter";
  for (const step of at) path += `.${typeof step === "number" ? step : step.replaceAll("\\", "\\\\").replaceAll(".", "\\.")}`;
  return path;
}

function compileChecked(value: unknown): CompiledFilter {
  // Shape first: it bounds the depth (cycles included) before JSON.stringify recurses.
  checkJsonShape(value, [], 0);
  const bytes = utf8Length(JSON.stringify(value));
  if (bytes > MAX_FILTER_BYTES) throw new FilterProblem([], `filter is ${grouped(bytes)} bytes; the limit is ${MAX_FILTER_BYTES / 1024} KiB`);
  const reads = { body: false };
  const matches = filterPredicate(value, [], reads);
  return { matches, readsBody: reads.body };
}

function checkJsonShape(value: unknown, at: Step[], depth: number): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new FilterProblem(at, `${value} is not a JSON number`);
    return;
  }
  if (typeof value !== "object") throw new FilterProblem(at, `a value of type ${typeof value} is not JSON`);
  if (depth + 1 > MAX_FILTER_DEPTH) throw new FilterProblem(at, `nested deeper than ${MAX_FILTER_DEPTH} levels`);
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      at.push(index);
      checkJsonShape(value[index], at, depth + 1);
      at.pop();
    }
    return;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw new FilterProblem(at, "only plain objects, arrays, text, numbers, booleans and null are JSON");
  for (const [key, item] of Object.entries(value)) {
    at.push(key);
    checkJsonShape(item, at, depth + 1);
    at.pop();
  }
}

/** UTF-8 bytes of well-formed text (JSON.stringify escapes lone surrogates). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

// The grammar. Values are known to be JSON within the depth limit here.

function filterPredicate(value: unknown, at: Step[], reads: { body: boolean }): Predicate {
  if (!isRecord(value)) throw new FilterProblem(at, "a filter must be an object");
  const parts: Predicate[] = [];
  for (const [key, operand] of Object.entries(value)) {
    at.push(key);
    if (key === "$and" || key === "$or") {
      if (!Array.isArray(operand) || operand.length === 0) throw new FilterProblem(at, `${key} needs a non-empty array of filters`);
      const filters = operand.map((filter, index) => {
        at.push(index);
        const predicate = filterPredicate(filter, at, reads);
        at.pop();
        return predicate;
      });
      parts.push(key === "$and" ? allOf(filters) : anyOf(filters));
    } else if (key === "$not") {
      const inner = filterPredicate(operand, at, reads);
      parts.push((doc) => !inner(doc));
    } else if (key.startsWith("$")) {
      throw new FilterProblem(at, FIELD_OPERATORS.has(key) ? `${key} applies to a field, as in {"body.amount": {"${key}": …}}` : `unknown operator ${key}`);
    } else {
      const path = fieldPath(key, at);
      if (path[0] === "body") reads.body = true;
      parts.push(conditionPredicate(operand, path, at));
    }
    at.pop();
  }
  return allOf(parts);
}

function allOf(parts: readonly Predicate[]): Predicate {
  if (parts.length === 1) return parts[0]!;
  return (doc) => parts.every((part) => part(doc));
}

function anyOf(parts: readonly Predicate[]): Predicate {
  return (doc) => parts.some((part) => part(doc));
}

/** A field key's steps: the document field, then keys or indexes (a header name is one step). */
function fieldPath(key: string, at: readonly Step[]): readonly string[] {
  if (key.length > MAX_FILTER_PATH_LENGTH) throw new FilterProblem(at, `field path is longer than ${MAX_FILTER_PATH_LENGTH} characters`);
  if (key === "") throw new FilterProblem(at, "a field path cannot be empty");
  const dot = key.indexOf(".");
  const root = dot === -1 ? key : key.slice(0, dot);
  if (!DOCUMENT_FIELDS.has(root)) throw new FilterProblem(at, `unknown field ${JSON.stringify(root)}; a path starts with method, path, query, headers or body`);
  if (dot === -1) return [root];
  const rest = key.slice(dot + 1);
  if (TEXT_FIELDS.has(root)) throw new FilterProblem(at, `${root} is text and has no fields`);
  if (root === "headers") {
    if (rest === "") throw new FilterProblem(at, "the header name is missing");
    return [root, rest.toLowerCase()];
  }
  const steps = rest.split(".");
  if (steps.includes("")) throw new FilterProblem(at, "field path has an empty step");
  return [root, ...steps];
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && Object.keys(value).some((key) => key.startsWith("$"));
}

function conditionPredicate(condition: unknown, path: readonly string[], at: Step[]): Predicate {
  if (!isOperatorObject(condition)) return positive(path, expanded(equalTo(condition)));
  const parts: Predicate[] = [];
  for (const [operator, operand] of Object.entries(condition)) {
    at.push(operator);
    parts.push(operatorPredicate(operator, operand, path, at));
    at.pop();
  }
  return allOf(parts);
}

function operatorPredicate(operator: string, operand: unknown, path: readonly string[], at: Step[]): Predicate {
  switch (operator) {
    case "$eq":
      return positive(path, expanded(equalTo(operand)));
    case "$ne":
      return negative(positive(path, expanded(equalTo(operand))));
    case "$in":
      return positive(path, expanded(oneOf(inList(operator, operand, at))));
    case "$nin":
      return negative(positive(path, expanded(oneOf(inList(operator, operand, at)))));
    case "$gt":
    case "$gte":
    case "$lt":
    case "$lte":
      return positive(path, expanded(ordered(operator, operand, at)));
    case "$exists": {
      if (typeof operand !== "boolean") throw new FilterProblem(at, "$exists needs true or false");
      const exists = positive(path, () => true);
      return operand ? exists : negative(exists);
    }
    case "$contains":
      return positive(path, containing(operand));
    case "$startsWith":
    case "$endsWith": {
      if (typeof operand !== "string") throw new FilterProblem(at, `${operator} needs text`);
      const test: ValueTest = operator === "$startsWith" ? (value) => typeof value === "string" && value.startsWith(operand) : (value) => typeof value === "string" && value.endsWith(operand);
      return positive(path, expanded(test));
    }
    case "$not":
      if (!isOperatorObject(operand)) throw new FilterProblem(at, `$not under a field needs an operator object, as in {"$not": {"$gt": 100}}`);
      return negative(conditionPredicate(operand, path, at));
    default:
      if (!operator.startsWith("$")) throw new FilterProblem(at, `${JSON.stringify(operator)} sits among operators; an operator object holds only operators`);
      throw new FilterProblem(at, LOGICAL_OPERATORS.has(operator) ? `${operator} belongs where a filter is, not under a field` : `unknown operator ${operator}`);
  }
}

function inList(operator: string, operand: unknown, at: readonly Step[]): readonly unknown[] {
  if (!Array.isArray(operand)) throw new FilterProblem(at, `${operator} needs an array`);
  if (operand.length > MAX_FILTER_IN_VALUES) throw new FilterProblem(at, `${operator} takes at most ${grouped(MAX_FILTER_IN_VALUES)} values`);
  return operand;
}

function ordered(operator: string, operand: unknown, at: readonly Step[]): ValueTest {
  if (typeof operand !== "number" && typeof operand !== "string") throw new FilterProblem(at, `${operator} needs a number or text`);
  const compare = comparison(operator);
  // Only like with like: a number never orders against text.
  return typeof operand === "number"
    ? (value) => typeof value === "number" && compare(value, operand)
    : (value) => typeof value === "string" && compare(value, operand);
}

function comparison(operator: string): <T extends number | string>(value: T, operand: T) => boolean {
  switch (operator) {
    case "$gt":
      return (value, operand) => value > operand;
    case "$gte":
      return (value, operand) => value >= operand;
    case "$lt":
      return (value, operand) => value < operand;
    default:
      return (value, operand) => value <= operand;
  }
}

// Evaluation.

/** True when some value the path reaches passes the test. */
function positive(path: readonly string[], test: ValueTest): Predicate {
  const indexes = path.map((step) => (CANONICAL_INDEX.test(step) ? Number(step) : undefined));
  const root = path[0] as keyof FilterDocument;
  return (doc) => someReached(doc[root], path, indexes, 1, test);
}

function negative(predicate: Predicate): Predicate {
  return (doc) => !predicate(doc);
}

/** Walks the path from `value` at step `at`, stopping at the first reached value that passes. */
function someReached(value: unknown, path: readonly string[], indexes: readonly (number | undefined)[], at: number, test: ValueTest): boolean {
  if (at === path.length) return test(value);
  const key = path[at]!;
  if (Array.isArray(value)) {
    const index = indexes[at];
    if (index !== undefined) return index < value.length && someReached(value[index], path, indexes, at + 1, test);
    for (const element of value) {
      if (isRecord(element) && Object.hasOwn(element, key) && someReached(element[key], path, indexes, at + 1, test)) return true;
    }
    return false;
  }
  return isRecord(value) && Object.hasOwn(value, key) && someReached(value[key], path, indexes, at + 1, test);
}

/** A reached array passes when it does or one of its elements does. */
function expanded(test: ValueTest): ValueTest {
  return (value) => test(value) || (Array.isArray(value) && value.some(test));
}

function equalTo(expected: unknown): ValueTest {
  return (value) => deepEqual(value, expected);
}

function oneOf(values: readonly unknown[]): ValueTest {
  const scalars = new Set(values.filter((value) => value === null || typeof value !== "object"));
  const composites = values.filter((value) => value !== null && typeof value === "object");
  return (value) => (value === null || typeof value !== "object" ? scalars.has(value) : composites.some((expected) => deepEqual(value, expected)));
}

function containing(expected: unknown): ValueTest {
  return (value) => {
    if (typeof value === "string") return typeof expected === "string" && value.includes(expected);
    return Array.isArray(value) && value.some((element) => deepEqual(element, expected));
  };
}

/** Deep equality of a document value with a filter's literal; recursion is bounded by the literal's depth. */
function deepEqual(value: unknown, expected: unknown): boolean {
  if (value === expected) return true;
  if (typeof value !== "object" || value === null || typeof expected !== "object" || expected === null) return false;
  if (Array.isArray(expected)) {
    if (!Array.isArray(value) || value.length !== expected.length) return false;
    for (let i = 0; i < expected.length; i += 1) if (!deepEqual(value[i], expected[i])) return false;
    return true;
  }
  if (Array.isArray(value)) return false;
  const expectedRecord = expected as Record<string, unknown>;
  const valueRecord = value as Record<string, unknown>;
  const keys = Object.keys(expectedRecord);
  if (Object.keys(valueRecord).length !== keys.length) return false;
  return keys.every((key) => Object.hasOwn(valueRecord, key) && deepEqual(valueRecord[key], expectedRecord[key]));
}

// The document of a request.

const utf8 = new TextDecoder("utf-8");

/**
 * A request as a filter reads it: header names lower-cased, repeated headers joined with
 * ", ", and the body (read on first use) parsed as JSON when its content type mentions json
 * or it opens with { or [, and it parses and is at most maxJsonBytes; else its UTF-8 text.
 */
export function filterDocument(request: FilterRequest, options: { maxJsonBytes?: number } = {}): FilterDocument {
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of request.headers) {
    const lower = name.toLowerCase();
    const earlier = headers[lower];
    headers[lower] = earlier === undefined ? value : `${earlier}, ${value}`;
  }
  const contentType = request.contentType ?? headers["content-type"] ?? "";
  const maxJsonBytes = options.maxJsonBytes ?? DEFAULT_FILTER_JSON_BYTES;
  let body: unknown;
  let bodyRead = false;
  return {
    method: request.method,
    path: request.path,
    query: request.query,
    headers,
    get body() {
      if (!bodyRead) {
        body = readBody(request.body, contentType, maxJsonBytes);
        bodyRead = true;
      }
      return body;
    },
  };
}

function readBody(bytes: Uint8Array, contentType: string, maxJsonBytes: number): unknown {
  const text = utf8.decode(bytes);
  if (bytes.length > maxJsonBytes || !(contentType.toLowerCase().includes("json") || opensLikeJson(bytes))) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function opensLikeJson(bytes: Uint8Array): boolean {
  // A UTF-8 byte order mark is skipped, as the decoder drops it.
  let at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (at < bytes.length && (bytes[at] === 0x20 || bytes[at] === 0x09 || bytes[at] === 0x0a || bytes[at] === 0x0d)) at += 1;
  return bytes[at] === 0x7b || bytes[at] === 0x5b;
}
