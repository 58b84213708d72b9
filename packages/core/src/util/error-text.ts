/**
 * What an error says, for a message: the `message` of an `Error`, else the value as text.
 *
 * @example
 * `Failed to read ${path} (${errorMessage(error)})`;
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
