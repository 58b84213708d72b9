import { describeKind, quote, SkillError } from "@skill/core";

/** What a refused value was: a number as written (`NaN`, `-1`, `1.5`), anything else by its kind and a quote. */
export function found(value: unknown): string {
  if (typeof value === "number" || typeof value === "bigint" || value == null) return String(value);
  return `${describeKind(value)} ${quote(value)}`;
}

/**
 * The error for an option a function refuses: `INVALID_FIELD` with `field` set to the option,
 * saying what was expected and what was found (`registerSkills: ttlMs must be a whole number
 * >= 0, found -1`).
 */
export function invalidOption(fn: string, name: string, expected: string, value: unknown): SkillError {
  return new SkillError("INVALID_FIELD", `${fn}: ${name} must be ${expected}, found ${found(value)}`, {
    field: name,
  });
}

/** A whole-number option: `fallback` when it is absent, else a safe integer of at least `min`. */
export function wholeOption(fn: string, name: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= min) return value;
  throw invalidOption(fn, name, `a whole number >= ${min}`, value);
}
