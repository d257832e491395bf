import { z } from "zod";
import { UserError } from "../errors.js";

/**
 * Routing filters: whether one destination of an endpoint gets a captured request. A filter
 * is a JSON object in MongoDB query style over the request's document
 * `{method, path, query, headers, body}` (see FilterDocument), evaluated by hand here: the
 * operator set is small and closed (no $regex, no $where, no code). Evaluation is metered
 * (see FilterWork): every step costs work units from a budget shared by all the filters one
 * capture runs, so no filter and no document, however shaped, holds the thread for long.
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
 * - $in: equal to one of at most MAX_FILTER_IN_VALUES values. Composite values (objects,
 *   arrays) are looked up by canonical JSON (keys sorted), which is the same equality as $eq.
 * - $gt $gte $lt $lte: numbers with numbers, strings with strings (UTF-16 code unit order);
 *   the operand must be one of the two, and mixed types never match.
 * - $exists: true when the path reaches some value (null included), false when none.
 * - $contains: a string that holds the operand text, or an array with an element deep-equal
 *   to the operand (only the array itself: ["a-b"] does not contain "a").
 * - $startsWith, $endsWith: strings only, with a string operand.
 * - $not: the inner condition fails, missing fields included (Mongo's reading).
 *
 * Work: a reached value costs what visiting it costs (a step, an array element, a node compared
 * or written as canonical JSON, a few characters of text searched). A capture's filters share
 * one FilterWork; when it runs out, the filter being evaluated and every later one are cut
 * short: they do not match, and the caller records why (FilterVerdict "cut_short"). So is a
 * filter that must look at more than MAX_FILTER_ARRAY_ELEMENTS elements of one array. A verdict that was reached is
 * always the one an unmetered evaluation would reach.
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
/** Elements of one array a filter may look at (stepping through it or testing them); past them it is cut short. */
export const MAX_FILTER_ARRAY_ELEMENTS = 100_000;
/**
 * Work units all the filters of one capture may spend. A unit is about one array element
 * visited; 1,000,000 of them took 40–100 ms of one core on the project's 2-core machine under
 * heavy load (docs/routing.md, "Work budget"). Spent on the capture worker thread for what the
 * main thread does not settle at once (see INLINE_FILTER_WORK in @rehook/services).
 */
export const DEFAULT_FILTER_WORK_BUDGET = 1_000_000;
/** Larger bodies are matched as text: parsing them would cost more than the capture should. */
export const DEFAULT_FILTER_JSON_BYTES = 10 * 1024 * 1024;

type FilterValue = null | boolean | number | string | readonly FilterValue[] | { readonly [key: string]: FilterValue };
/** A filter as saved (JSON); parseFilter checks an unknown value into one. */
export type RoutingFilter = { readonly [key: string]: FilterValue };

/** What a filter reads of a request. `body` is the parsed JSON, or else the text. */
export type FilterDocument = { method: string; path: string; query: string; headers: Record<string, string>; body: unknown };

/** "cut_short": the work budget ran out (or a path reached too many elements) before a verdict; it does not match. */
export type FilterVerdict = "match" | "no_match" | "cut_short";

/** What one capture's filters may still spend (see DEFAULT_FILTER_WORK_BUDGET); share one across them. */
export class FilterWork {
  private left: number;
  constructor(readonly budget: number = DEFAULT_FILTER_WORK_BUDGET) {
    this.left = budget;
  }

  /** Takes `units`, or cuts the evaluation short (thrown up to evaluate) when they are not there. */
  spend(units: number): void {
    this.left -= units;
    if (this.left < 0) throw new CutShort();
  }

  get exhausted(): boolean {
    return this.left < 0;
  }

  get spent(): number {
    return this.budget - this.left;
  }
}

/** Unwinds an evaluation that ran out of work: thrown by FilterWork.spend and the element cap, caught by evaluate. */
class CutShort extends Error {}

export interface CompiledFilter {
  /** The verdict, spending from `work` (a budget of its own when not given). */
  evaluate(doc: FilterDocument, work?: FilterWork): FilterVerdict;
  /** evaluate(...) === "match". */
  matches(doc: FilterDocument, work?: FilterWork): boolean;
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
type Predicate = (doc: FilterDocument, work: FilterWork) => boolean;
type ValueTest = (value: unknown, work: FilterWork) => boolean;

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

const MATCHES_NOTHING: CompiledFilter = { evaluate: () => "no_match", matches: () => false, readsBody: false };

/** A saved filter ready to evaluate; one a later, stricter check refuses lets nothing through (never a 503 for the sender). */
export function compileSavedFilter(filter: RoutingFilter): CompiledFilter {
  try {
    return compileChecked(filter);
  } catch (error) {
    if (!(error instanceof FilterProblem)) throw error;
    return MATCHES_NOTHING;
  }
}

/** Destinations' saved filters compiled, one compiled filter per distinct filter (routeByFilters then evaluates it once). */
export function compileSavedFilters(saved: ReadonlyArray<{ id: string; filter: RoutingFilter }>): Array<{ id: string; filter: CompiledFilter }> {
  const byText = new Map<string, CompiledFilter>();
  return saved.map(({ id, filter }) => {
    const text = JSON.stringify(filter);
    let compiled = byText.get(text);
    if (!compiled) byText.set(text, (compiled = compileSavedFilter(filter)));
    return { id, filter: compiled };
  });
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
  const predicate = filterPredicate(value, [], reads);
  const evaluate = (doc: FilterDocument, work: FilterWork = new FilterWork()): FilterVerdict => {
    // Spent up by an earlier filter of the same capture: this one is not started.
    if (work.exhausted) return "cut_short";
    try {
      return predicate(doc, work) ? "match" : "no_match";
    } catch (error) {
      if (error instanceof CutShort) return "cut_short";
      throw error;
    }
  };
  return { evaluate, matches: (doc, work) => evaluate(doc, work) === "match", readsBody: reads.body };
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
      parts.push((doc, work) => !inner(doc, work));
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
  return (doc, work) => parts.every((part) => part(doc, work));
}

function anyOf(parts: readonly Predicate[]): Predicate {
  return (doc, work) => parts.some((part) => part(doc, work));
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
      // At most the operand's length is compared: one unit, like any scalar test.
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

// Evaluation. Every function below that looks at a document value spends work for it first.

/** Characters of text searched per work unit (a search may cost a few ns a character at worst). */
const TEXT_CHARACTERS_PER_UNIT = 8;
/** A node written as canonical JSON costs a little more than a step (a key list, a sort, text). */
const CANONICAL_NODE_UNITS = 2;

/** True when some value the path reaches passes the test. */
function positive(path: readonly string[], test: ValueTest): Predicate {
  const indexes = path.map((step) => (CANONICAL_INDEX.test(step) ? Number(step) : undefined));
  const root = path[0] as keyof FilterDocument;
  return (doc, work) => {
    work.spend(1);
    return someReached(doc[root], path, indexes, 1, test, work);
  };
}

function negative(predicate: Predicate): Predicate {
  return (doc, work) => !predicate(doc, work);
}

/** Looking at an array's element `index`: one unit, and past the cap the evaluation is cut short. */
function visitElement(index: number, work: FilterWork): void {
  if (index >= MAX_FILTER_ARRAY_ELEMENTS) throw new CutShort();
  work.spend(1);
}

/** Walks the path from `value` at step `at`, stopping at the first reached value that passes. */
function someReached(value: unknown, path: readonly string[], indexes: readonly (number | undefined)[], at: number, test: ValueTest, work: FilterWork): boolean {
  if (at === path.length) return test(value, work);
  work.spend(1);
  const key = path[at]!;
  if (Array.isArray(value)) {
    const index = indexes[at];
    if (index !== undefined) return index < value.length && someReached(value[index], path, indexes, at + 1, test, work);
    for (let i = 0; i < value.length; i += 1) {
      visitElement(i, work);
      const element: unknown = value[i];
      if (isRecord(element) && Object.hasOwn(element, key) && someReached(element[key], path, indexes, at + 1, test, work)) return true;
    }
    return false;
  }
  return isRecord(value) && Object.hasOwn(value, key) && someReached(value[key], path, indexes, at + 1, test, work);
}

/** A reached array passes when it does or one of its elements does. */
function expanded(test: ValueTest): ValueTest {
  return (value, work) => {
    work.spend(1);
    if (test(value, work)) return true;
    if (!Array.isArray(value)) return false;
    for (let i = 0; i < value.length; i += 1) {
      visitElement(i, work);
      if (test(value[i], work)) return true;
    }
    return false;
  };
}

function equalTo(expected: unknown): ValueTest {
  return (value, work) => deepEqual(value, expected, work);
}

/**
 * $in: scalars in a Set, composites as a Set of their canonical JSON. A reached composite is
 * written out only as far as the longest composite value: a longer one equals none of them.
 */
function oneOf(values: readonly unknown[]): ValueTest {
  const scalars = new Set(values.filter((value) => value === null || typeof value !== "object"));
  const literals = values.filter((value) => value !== null && typeof value === "object");
  const composites = new Set(literals.map((value) => canonicalJson(value)!));
  let longest = 0;
  for (const text of composites) longest = Math.max(longest, text.length);
  // Nor deeper than the deepest value: this also bounds the recursion (a body may nest 10,000 levels).
  const deepest = Math.max(0, ...literals.map(nestingOf));
  return (value, work) => {
    if (value === null || typeof value !== "object") return scalars.has(value);
    if (composites.size === 0) return false;
    const text = canonicalJson(value, { maxLength: longest, maxDepth: deepest, work });
    return text !== undefined && composites.has(text);
  };
}

/** Levels of brackets in a filter literal (a scalar is 0); bounded by MAX_FILTER_DEPTH, checked at parse. */
function nestingOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  let deepest = 0;
  for (const item of Object.values(value)) deepest = Math.max(deepest, nestingOf(item));
  return deepest + 1;
}

function containing(expected: unknown): ValueTest {
  return (value, work) => {
    work.spend(1);
    if (typeof value === "string") {
      if (typeof expected !== "string") return false;
      work.spend(Math.ceil(value.length / TEXT_CHARACTERS_PER_UNIT));
      return value.includes(expected);
    }
    if (!Array.isArray(value)) return false;
    for (let i = 0; i < value.length; i += 1) {
      visitElement(i, work);
      if (deepEqual(value[i], expected, work)) return true;
    }
    return false;
  };
}

/**
 * Deep equality of a document value with a filter's literal (arrays in order, objects with the
 * same own keys in any order); recursion is bounded by the literal's depth, work by its size.
 */
function deepEqual(value: unknown, expected: unknown, work: FilterWork): boolean {
  work.spend(1);
  if (value === expected) return true;
  if (typeof value !== "object" || value === null || typeof expected !== "object" || expected === null) return false;
  if (Array.isArray(expected)) {
    if (!Array.isArray(value) || value.length !== expected.length) return false;
    for (let i = 0; i < expected.length; i += 1) if (!deepEqual(value[i], expected[i], work)) return false;
    return true;
  }
  if (Array.isArray(value)) return false;
  const expectedRecord = expected as Record<string, unknown>;
  const valueRecord = value as Record<string, unknown>;
  const keys = Object.keys(expectedRecord);
  // Listing the value's keys costs one unit a key (a body object may have a million).
  const valueKeys = Object.keys(valueRecord).length;
  work.spend(valueKeys);
  if (valueKeys !== keys.length) return false;
  return keys.every((key) => Object.hasOwn(valueRecord, key) && deepEqual(valueRecord[key], expectedRecord[key], work));
}

/** How far canonicalJson writes: past either bound (or when `work` runs out) it stops. */
export interface CanonicalBounds {
  /** Characters of text: past them, undefined (checked before the costly parts: a huge array, object or string is refused by its size alone). */
  maxLength?: number;
  /** Levels of brackets (an object or array is one, a scalar none): past them, undefined, before recursing any deeper. */
  maxDepth?: number;
  /** Spent per node and per text written. */
  work?: FilterWork;
}

/**
 * JSON with every object's keys in code unit order, so that values deepEqual calls equal are
 * equal text (numbers as JSON.stringify writes them: 1.0 and 1, -0 and 0 alike; lone
 * surrogates escaped). Undefined past `bounds` (see CanonicalBounds); the recursion never goes
 * deeper than maxDepth, so a document nested thousands of levels costs no deep stack.
 */
export function canonicalJson(value: unknown, bounds: CanonicalBounds = {}): string | undefined {
  const out: CanonicalOut = { text: "", limit: bounds.maxLength ?? Number.POSITIVE_INFINITY, depthLimit: bounds.maxDepth ?? MAX_FILTER_DEPTH, work: bounds.work };
  return writeCanonical(value, out, 0) ? out.text : undefined;
}

interface CanonicalOut {
  text: string;
  limit: number;
  depthLimit: number;
  work: FilterWork | undefined;
}

/** Writes `node`, found `depth` levels of brackets deep, to out.text; false once past a bound. */
function writeCanonical(node: unknown, out: CanonicalOut, depth: number): boolean {
  out.work?.spend(CANONICAL_NODE_UNITS);
  if (node === null || typeof node !== "object") {
    if (typeof node === "string") {
      // Its JSON text is at least its length and two quotes.
      if (out.text.length + node.length + 2 > out.limit) return false;
      out.work?.spend(Math.ceil(node.length / TEXT_CHARACTERS_PER_UNIT));
    }
    out.text += JSON.stringify(node) ?? "null";
    return out.text.length <= out.limit;
  }
  if (depth >= out.depthLimit) return false;
  if (Array.isArray(node)) {
    // "[", then at least one character and a comma per element.
    if (out.text.length + 2 * node.length + 1 > out.limit) return false;
    out.text += "[";
    for (let i = 0; i < node.length; i += 1) {
      if (i > 0) out.text += ",";
      if (!writeCanonical(node[i], out, depth + 1)) return false;
    }
    out.text += "]";
    return out.text.length <= out.limit;
  }
  const record = node as Record<string, unknown>;
  const keys = Object.keys(record);
  out.work?.spend(keys.length);
  // "{", then at least `"":0` and a comma per key.
  if (out.text.length + 5 * keys.length + 1 > out.limit) return false;
  if (keys.length > 1) keys.sort();
  out.text += "{";
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    if (out.text.length + key.length + 3 > out.limit) return false;
    out.text += `${i > 0 ? "," : ""}${JSON.stringify(key)}:`;
    if (!writeCanonical(record[key], out, depth + 1)) return false;
  }
  out.text += "}";
  return out.text.length <= out.limit;
}

// One capture's filters together.

/** Which of a capture's filtered destinations take it, and those whose filter was cut short (they do not). */
export interface FilterRouting {
  matched: string[];
  cutShort: string[];
}

/**
 * Runs each destination's filter on the document, in order, all spending from one `work`:
 * once it is spent, the rest are cut short without being started. A compiled filter shared by
 * several destinations (compileSavedFilters gives one per distinct filter) is evaluated once.
 */
export function routeByFilters(filters: ReadonlyArray<{ id: string; filter: CompiledFilter }>, doc: FilterDocument, work: FilterWork): FilterRouting {
  const routing: FilterRouting = { matched: [], cutShort: [] };
  const verdicts = new Map<CompiledFilter, FilterVerdict>();
  for (const { id, filter } of filters) {
    let verdict = verdicts.get(filter);
    if (verdict === undefined) verdicts.set(filter, (verdict = filter.evaluate(doc, work)));
    if (verdict === "match") routing.matched.push(id);
    else if (verdict === "cut_short") routing.cutShort.push(id);
  }
  return routing;
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
