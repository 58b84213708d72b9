import picomatch from "picomatch";

/** Folders never entered unless `ignore` says otherwise. */
export const DEFAULT_IGNORE: readonly string[] = Object.freeze(["node_modules", ".git"]);

/**
 * Decides whether a folder is skipped: `name` is its own name, `rel` its path below the scan
 * root with `/` separators. `usesPaths` is false when `rel` is never looked at (callers may
 * then pass `""`).
 */
export interface IgnoreTest {
  (name: string, rel: string): boolean;
  readonly usesPaths: boolean;
}

/** Characters that may make a pattern a glob (picomatch's syntax, escapes included). */
const GLOB_SYNTAX = /[*?[\]{}()!@+\\]/;

/**
 * Compiles `ignore` globs. A plain name (`node_modules`) is a set lookup; a glob without `/`
 * (`*.cache`) matches the folder name at any depth; a glob with `/` (`docs/**`) matches the
 * path below the root. Globs match dot-folders too (`*` matches `.cache`).
 */
export function compileIgnore(patterns: readonly string[] = DEFAULT_IGNORE): IgnoreTest {
  const names = new Set<string>();
  const nameGlobs: string[] = [];
  const pathGlobs: string[] = [];
  for (const pattern of patterns) {
    const trimmed = pattern.replace(/^\.\//, "").replace(/\/+$/, "");
    if (trimmed === "") continue;
    if (trimmed.includes("/")) pathGlobs.push(trimmed);
    // A name without any character of glob syntax is plain: no need to ask picomatch.
    else if (GLOB_SYNTAX.test(trimmed) && picomatch.scan(trimmed).isGlob) nameGlobs.push(trimmed);
    else names.add(trimmed);
  }
  const byName = nameGlobs.length > 0 ? picomatch(nameGlobs, { dot: true }) : undefined;
  const byPath = pathGlobs.length > 0 ? picomatch(pathGlobs, { dot: true }) : undefined;
  const test =
    !byName && !byPath
      ? (name: string) => names.has(name)
      : (name: string, rel: string) => names.has(name) || byName?.(name) === true || byPath?.(rel) === true;
  return Object.assign(test, { usesPaths: byPath !== undefined });
}
