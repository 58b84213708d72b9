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
