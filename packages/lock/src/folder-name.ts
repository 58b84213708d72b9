/**
 * The folder a skill named `name` is installed in, as `skills` names it: lowercased, every
 * run of characters other than `a-z 0-9 . _` turned into `-`, leading and trailing dots and
 * dashes dropped, at most 255 characters, `unnamed-skill` when nothing is left. Always one
 * safe path segment (never empty, `.`, `..`, or holding a separator).
 *
 * @example
 * skillFolderName("PDF Tools"); // "pdf-tools"
 * skillFolderName("../../etc"); // "etc"
 */
export function skillFolderName(name: string): string {
  const safe = name
    .toLowerCase()
    .replace(/[^a-z0-9._]+/g, "-")
    .replace(/^[.-]+|[.-]+$/g, "")
    .slice(0, 255);
  // Cutting at 255 may leave a trailing dot or dash, as it does in `skills`; never a bare `.`/`..`.
  return safe === "" ? "unnamed-skill" : safe;
}
