import { errnoOf, printable } from "@skill/core";

/** A name from a manifest, safe to print: control characters escaped, at most 128 characters (a safe name is never cut). */
export function label(name: string): string {
  const chars = [...name.slice(0, 256)];
  return printable(chars.length > 128 ? `${chars.slice(0, 128).join("")}…` : chars.join(""));
}

/**
 * `listener`, called as an observer: what it throws is dropped, since a progress display that
 * fails must not change what is pulled or packed.
 */
export function observing<E>(listener: ((event: E) => void) | undefined): (event: E) => void {
  return (event) => {
    try {
      listener?.(event);
    } catch {
      // The work goes on.
    }
  };
}

export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = errnoOf(error);
  return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}
