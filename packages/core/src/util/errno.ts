/**
 * The system error code behind an error (`ENOENT`, `EACCES`, `ELOOP`…): its `code` when that
 * is a string, else `undefined`.
 *
 * @example
 * if (errnoOf(error) === "ENOENT") return undefined;
 */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}
