/**
 * Plain code-unit order (`a < b`), never locale-dependent: the order every sorted list of
 * @skill/* uses.
 *
 * @example
 * names.sort(compareCodeUnits);
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A byte count for people: `512 bytes`, `1.5 KiB`, `25.0 MiB`.
 *
 * @example
 * formatBytes(1024 * 1024); // "1.0 MiB"
 */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 * 1024) return `${(n / (1024 * 1024 * 1024)).toFixed(1)} GiB`;
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}

const SURROGATE = /[\uD800-\uDFFF]/;
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/**
 * Characters of a text, counting code points (an emoji is one), not UTF-16 units: the units
 * less one for each surrogate pair (a lone surrogate counts as one, as iterating the text
 * does). Most text has no surrogate, and one scan tells.
 */
export function codePoints(text: string): number {
  if (!SURROGATE.test(text)) return text.length;
  return text.length - (text.match(SURROGATE_PAIR)?.length ?? 0);
}

/**
 * The length Codex gives a `name` or `description` before it compares it with its limit: the
 * value trimmed, each run of whitespace made one space, counted in code points. The one rule of
 * `rejectLongName`, `rejectLongDescription` and of the `codex` validation target, so a loader and `validate` agree.
 */
export function singleLineLength(value: string): number {
  return codePoints(value.trim().split(/\s+/).join(" "));
}
