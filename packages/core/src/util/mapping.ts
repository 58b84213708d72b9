/**
 * Whether `value` is a mapping: a plain object of fields, as JSON, YAML or an object literal
 * gives. `null`, a list, and a `Date`, `Map` or other class instance are not (a YAML timestamp
 * is a `Date`, and a `Map` of rules must not read as "no rules").
 */
export function isMapping(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
