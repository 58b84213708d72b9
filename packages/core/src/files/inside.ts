import { join, resolve, sep } from "node:path";
import { describeKind, quote, SkillError } from "../spec/errors.js";

// A drive prefix (`C:`, `c:foo`): absolute or drive-relative on Windows, never a plain name
// in a portable skill.
const DRIVE = /^[A-Za-z]:/;

function unsafe(root: string, path: unknown, why: string): SkillError {
  return new SkillError(
    "UNSAFE_PATH",
    `Unsafe path: expected a relative "/"-separated path inside ${root}, found ${quote(path)} (${why})`,
    { path: root },
  );
}

/**
 * The one lexical path rule of @skill/*: the absolute path that `path` names below `root`.
 *
 * `path` is a path as a skill's file list gives it: relative, `/`-separated. `.` segments
 * and empty segments (`a//b`, a trailing `/`) are dropped; nothing is decoded (`%2e%2e` is a
 * file name like any other). `root` is resolved against the working directory; it is not
 * touched on disk (see {@link readInside} for the check of the real path at open).
 *
 * @throws SkillError `UNSAFE_PATH` (with `path` = the resolved root) when `path` is not a
 *   string, is empty, absolute (`/x`, `//server/share`, `C:\x`, `C:x`), holds a backslash, a
 *   NUL byte or any `..` segment (even one that would stay inside: `a/../b`), or names the
 *   root itself (`.`, `./`).
 *
 * @example
 * resolveInside("/skills/pdf", "scripts/./fill.py"); // "/skills/pdf/scripts/fill.py"
 * resolveInside("/skills/pdf", "../docx/SKILL.md");  // throws UNSAFE_PATH
 */
export function resolveInside(root: string, path: string): string {
  const base = resolve(root);
  if (typeof path !== "string") throw unsafe(base, path, `${describeKind(path)}, not a string`);
  if (path === "") throw unsafe(base, path, "it is empty");
  if (path.includes("\0")) throw unsafe(base, path, "it holds a NUL byte");
  if (path.includes("\\")) throw unsafe(base, path, 'it holds a backslash; separate folders with "/"');
  if (path.startsWith("/")) throw unsafe(base, path, "it is absolute");
  if (DRIVE.test(path)) throw unsafe(base, path, "it starts with a drive letter");
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") throw unsafe(base, path, 'it holds a ".." segment');
    segments.push(segment);
  }
  if (segments.length === 0) throw unsafe(base, path, "it names the folder itself, not a file in it");
  return join(base, ...segments);
}

/**
 * True when `path` is `root` itself or lies below it, comparing the resolved absolute paths
 * lexically (a prefix check that respects the separator: `/a/bc` is not inside `/a/b`).
 * Symbolic links are not resolved: pass real paths (`fs.realpath`) to judge where a link leads.
 */
export function isInside(root: string, path: string): boolean {
  const base = resolve(root);
  const full = resolve(path);
  if (full === base) return true;
  return full.startsWith(base.endsWith(sep) ? base : `${base}${sep}`);
}
