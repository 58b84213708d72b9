/**
 * JSON data from parsed YAML: what a skill's `frontmatter` holds, what heads are compared as
 * and what the head cache stores (DESIGN §3 (3), "heads compare as JSON"). Every walk here is
 * iterative, so a deeply nested document never overflows the stack.
 */

import { isMapping } from "../util/mapping.js";

/** A value that turns into nothing: dropped from a mapping, `null` in a list. */
const ABSENT: unique symbol = Symbol("absent");
/** A list or mapping, copied by the walk. */
const CONTAINER: unique symbol = Symbol("container");

type Container = unknown[] | Record<string, unknown>;

interface Frame {
  readonly source: Record<string, unknown> | readonly unknown[];
  readonly target: Container;
  /** Keys of a mapping, `undefined` for a list (walked by index). */
  readonly keys: readonly string[] | undefined;
  readonly length: number;
  index: number;
}

function base64(view: ArrayBufferView | ArrayBufferLike): string {
  const bytes = ArrayBuffer.isView(view)
    ? Buffer.from(view.buffer, view.byteOffset, view.byteLength)
    : Buffer.from(view);
  return bytes.toString("base64");
}

function isBuffer(value: object): value is ArrayBufferLike {
  return (
    value instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer === "function" && value instanceof SharedArrayBuffer)
  );
}

/** The JSON form of a value that has no children, or a marker saying what to do instead. */
function leaf(value: unknown): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // -0 becomes 0, as JSON.stringify writes it.
      return Number.isFinite(value) ? value + 0 : null;
    case "bigint":
      return value.toString();
    case "undefined":
    case "function":
    case "symbol":
      return ABSENT;
    default:
      break;
  }
  if (value === null) return null;
  const object = value as object;
  if (object instanceof Date) {
    const time = object.getTime();
    return Number.isNaN(time) ? null : object.toISOString();
  }
  if (ArrayBuffer.isView(object) || isBuffer(object)) return base64(object);
  return CONTAINER;
}

function put(target: Container, key: string | number, value: unknown): void {
  if (Array.isArray(target)) {
    target.push(value);
  } else if (key === "__proto__") {
    // An own property, as JSON.parse makes it: assignment would set the prototype instead.
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key as string] = value;
  }
}

function frame(source: object, target: Container): Frame {
  if (Array.isArray(source)) {
    return { source, target, keys: undefined, length: source.length, index: 0 };
  }
  const keys = Object.keys(source);
  return { source: source as Record<string, unknown>, target, keys, length: keys.length, index: 0 };
}

/**
 * The JSON data a parsed YAML value stands for, as a fresh copy: what `JSON.parse` of
 * `JSON.stringify(value)` would give, with the YAML types js-yaml produces made explicit.
 *
 * - a `Date` becomes its ISO string (`2024-01-01T00:00:00.000Z`), an invalid date `null`;
 * - bytes (`!!binary`: a `Buffer`, any `ArrayBuffer` view, an `ArrayBuffer`) become base64;
 * - a non-finite number becomes `null`, `-0` becomes `0`, a bigint its decimal string;
 * - `undefined`, functions and symbols are dropped from mappings and become `null` in lists
 *   (and at the top);
 * - any other object is copied as a mapping of its own enumerable string keys, in their order
 *   (document order for YAML), `__proto__` kept as an own key;
 * - a value that contains itself (a recursive YAML alias) has the inner occurrence replaced
 *   by `null`; shared (non-recursive) aliases are expanded.
 */
export function toJsonValue(value: unknown): unknown {
  const top = leaf(value);
  if (top === ABSENT) return null;
  if (top !== CONTAINER) return top;
  const root: Container = Array.isArray(value) ? [] : {};
  const active = new Set<object>([value as object]);
  const stack: Frame[] = [frame(value as object, root)];
  while (stack.length > 0) {
    const current = stack[stack.length - 1] as Frame;
    if (current.index >= current.length) {
      stack.pop();
      active.delete(current.source);
      continue;
    }
    const i = current.index++;
    const key: string | number = current.keys === undefined ? i : (current.keys[i] as string);
    const child = (current.source as Record<string | number, unknown>)[key];
    let out = leaf(child);
    if (out === CONTAINER) {
      if (active.has(child as object)) {
        out = null;
      } else {
        const target: Container = Array.isArray(child) ? [] : {};
        active.add(child as object);
        stack.push(frame(child as object, target));
        out = target;
      }
    }
    if (out === ABSENT) {
      if (current.keys === undefined) put(current.target, key, null);
      continue;
    }
    put(current.target, key, out);
  }
  return root;
}

/**
 * Deep structural equality of JSON values: the same scalars (`===`), lists of equal items in
 * order, mappings with the same keys holding equal values (key order does not matter).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  // Pairs already compared (or being compared): a shared alias is compared once, a cycle ends.
  const seen = new Map<object, Set<object>>();
  while (stack.length > 0) {
    const [x, y] = stack.pop() as [unknown, unknown];
    if (x === y) continue;
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
    let partners = seen.get(x);
    if (partners === undefined) {
      partners = new Set();
      seen.set(x, partners);
    } else if (partners.has(y)) {
      continue;
    }
    partners.add(y);
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i], y[i]]);
      continue;
    }
    if (Array.isArray(y)) return false;
    const xKeys = Object.keys(x);
    if (xKeys.length !== Object.keys(y).length) return false;
    for (const key of xKeys) {
      if (!Object.hasOwn(y, key)) return false;
      stack.push([(x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key]]);
    }
  }
  return true;
}

/**
 * The first top-level field in which two mappings of JSON data differ (fields of `a` in their
 * order, then fields only `b` has), for messages such as "field 'description' differs".
 * `undefined` when they are {@link jsonEqual}; `""` when they differ but either is not a mapping.
 */
export function firstDifference(a: unknown, b: unknown): string | undefined {
  if (!isMapping(a) || !isMapping(b)) return jsonEqual(a, b) ? undefined : "";
  for (const key of Object.keys(a)) {
    if (!Object.hasOwn(b, key) || !jsonEqual(a[key], b[key])) return key;
  }
  for (const key of Object.keys(b)) {
    if (!Object.hasOwn(a, key)) return key;
  }
  return undefined;
}

/** Whether JSON data keeps `value` as it is: a string, a boolean, `null`, a finite number but -0. */
function isKeptLeaf(value: unknown): boolean {
  return Object.is(leaf(value), value);
}

function isPlainMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * The values in a list, or in a mapping, of kept leaves; -1 for anything else (a hole, a
 * nested container, a `__proto__` key, an inherited field).
 */
function leavesIn(value: unknown): number {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!(i in value) || !isKeptLeaf(value[i])) return -1;
    return value.length;
  }
  if (!isPlainMapping(value)) return -1;
  let count = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || key === "__proto__" || !isKeptLeaf(value[key])) return -1;
    count++;
  }
  return count;
}

/**
 * `deepFreeze(toJsonValue(value))` in one pass, for the shapes most frontmatter has: a mapping
 * of kept leaves (strings, booleans, `null`, finite numbers), and of lists and mappings of kept
 * leaves (a `metadata` mapping, an `allowed-tools` list). `undefined` for anything else, or for
 * more than `limit` values (counted as every value and container, the mapping itself
 * included). The copies are new objects; spread defines own properties, so a `__proto__` key
 * stays a field.
 */
export function simpleJsonValue(value: object, limit: number): Record<string, unknown> | undefined {
  if (!isPlainMapping(value)) return undefined;
  let count = 1;
  let nested: string[] | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return undefined;
    const field = value[key];
    count++;
    if (isKeptLeaf(field)) continue;
    const leaves = leavesIn(field);
    if (leaves < 0 || key === "__proto__") return undefined;
    count += leaves;
    if (nested === undefined) nested = [key];
    else nested.push(key);
  }
  if (count > limit) return undefined;
  const out = { ...value };
  if (nested !== undefined) {
    for (const key of nested) {
      const field = value[key];
      out[key] = Object.freeze(
        Array.isArray(field) ? field.slice() : { ...(field as Record<string, unknown>) },
      );
    }
  }
  return Object.freeze(out);
}

/** Freezes JSON data all the way down, in place, and returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  // Only objects go on the stack: most values of JSON data are strings.
  const stack: object[] = [value];
  while (stack.length > 0) {
    const node = stack.pop() as object;
    // Bytes cannot be frozen (and are not JSON data): left as they are rather than throwing.
    if (Object.isFrozen(node) || ArrayBuffer.isView(node)) continue;
    Object.freeze(node);
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const child: unknown = node[i];
        if (typeof child === "object" && child !== null) stack.push(child);
      }
    } else {
      for (const key of Object.keys(node)) {
        const child = (node as Record<string, unknown>)[key];
        if (typeof child === "object" && child !== null) stack.push(child);
      }
    }
  }
  return value;
}
