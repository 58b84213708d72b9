import { InvalidArgumentError, Option } from "commander";

/** An option; `parse` turns its value into what the command receives, and refuses a bad one. */
export function option<T>(
  flags: string,
  description: string,
  parse?: (value: string, previous: T) => T,
): Option {
  const made = new Option(flags, description);
  return parse ? made.argParser(parse) : made;
}

/** Digits only: `Number()` would also take "", " ", "0x10" and "1e3". */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) {
    throw new InvalidArgumentError("expected a whole number (digits only)");
  }
  return n;
}

/** `--limit` of `skill search`: 1 to 100, what the index returns at most. */
export function searchLimit(value: string): number {
  const n = positiveInt(value);
  if (n < 1 || n > 100) throw new InvalidArgumentError("expected a whole number from 1 to 100");
  return n;
}

export function budgetValue(value: string): number {
  return value === "none" ? Number.POSITIVE_INFINITY : positiveInt(value);
}

export function positiveMs(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError("expected milliseconds, a whole number above 0");
  return n;
}

/** A pull limit: digits only, above 0 (a limit of 0 would refuse every pack). */
export function limitValue(what: string): (value: string) => number {
  return (value) => {
    const n = positiveInt(value);
    if (n === 0) throw new InvalidArgumentError(`expected ${what}, a whole number above 0`);
    return n;
  };
}

/** A repeatable option's values, in the order given. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
