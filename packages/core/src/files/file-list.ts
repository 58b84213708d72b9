import { SKILL_FILE } from "../spec/constants.js";
import { compareCodeUnits } from "../util/text.js";

function skipped(name: string): boolean {
  return name.startsWith(".") || name === "node_modules";
}

/**
 * A source's own file list, held to the same rules as a walk: relative `/`-separated paths
 * only (absolute paths, `..` segments, backslashes and NUL are dropped), no SKILL.md, no
 * dot-folders or `node_modules`, de-duplicated, sorted, at most `limit`.
 */
export function normalizeFileList(files: unknown, limit: number): string[] {
  if (!Array.isArray(files)) return [];
  const kept = new Set<string>();
  for (const file of files) {
    if (typeof file !== "string" || file === "" || file.startsWith("/")) continue;
    if (file.includes("\\") || file.includes("\0")) continue;
    const parts = file.split("/");
    if (parts.some((p) => p === "" || p === "." || p === ".." || skipped(p))) continue;
    if (file === SKILL_FILE) continue;
    kept.add(file);
  }
  return [...kept].sort(compareCodeUnits).slice(0, limit);
}
