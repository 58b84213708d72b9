import { printable } from "@skill/core";

export { quote } from "@skill/core";

/** A name from a manifest, safe to print: control characters escaped, at most 128 characters (a safe name is never cut). */
export function label(name: string): string {
  const chars = [...name.slice(0, 256)];
  return printable(chars.length > 128 ? `${chars.slice(0, 128).join("")}…` : chars.join(""));
}

/** Names a value's kind for messages: `a number`, `a list`, `null`… */
export function describeKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}

export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}
