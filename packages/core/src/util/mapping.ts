/** Whether `value` is a mapping (a plain object of fields): not `null`, not a list. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
