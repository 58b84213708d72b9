/** C0 and C1 control characters, DEL, and lone surrogates: nothing a terminal should receive raw. */
const UNPRINTABLE = /[\p{Cc}\p{Cs}]/gu;

function escapeUnprintable(text: string): string {
  return text.replace(UNPRINTABLE, (ch) => `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`);
}

/**
 * Quotes a value for a message: JSON-style, control characters escaped (a hostile manifest
 * must not reach a terminal as escape sequences), at most `max` characters, `…` when cut.
 */
export function quote(value: unknown, max = 60): string {
  let text: string;
  if (typeof value === "string") text = value;
  else {
    try {
      text = JSON.stringify(value) ?? String(value);
    } catch {
      // Too deep to print (JSON nested a million levels): its kind says enough.
      text = Array.isArray(value) ? "[…]" : "{…}";
    }
  }
  const chars = [...text.slice(0, max * 2)];
  const shown = chars.length > max ? `${chars.slice(0, max).join("")}…` : chars.join("");
  return escapeUnprintable(typeof value === "string" ? JSON.stringify(shown) : shown);
}

/** A name from a manifest, safe to print: control characters escaped, at most 128 characters (a safe name is never cut). */
export function label(name: string): string {
  const chars = [...name.slice(0, 256)];
  return escapeUnprintable(chars.length > 128 ? `${chars.slice(0, 128).join("")}…` : chars.join(""));
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
