// The rules of the house (DESIGN §12.1), as checks over the non-test sources of every package
// and app: one walker, reader and writer of skill bytes (core's), one path-containment rule, no
// test helpers in published code, no import circle, and each package depending only on the
// packages the dependency rule allows. Each check takes the sources as a map, so its test can
// plant a violation and see it caught.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";

/** Non-test source files by path relative to the repository (`/`-separated): their text. */
export type Sources = ReadonlyMap<string, string>;

/** Paths allowed to break a rule, each with why. */
export type AllowList = Readonly<Record<string, string>>;

const SKIP_DIRS = new Set(["node_modules", "dist", "__fixtures__"]);

/** Every non-test `.ts` file under `packages/*\/src` and `apps/*\/src` of the repository at `root`. */
export function readSources(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) walk(path);
      } else if (
        entry.name.endsWith(".ts") &&
        !entry.name.endsWith(".test.ts") &&
        !entry.name.endsWith(".d.ts")
      ) {
        out.set(relative(root, path).split("\\").join("/"), readFileSync(path, "utf8"));
      }
    }
  };
  for (const group of ["packages", "apps"]) {
    for (const name of readdirSync(join(root, group))) {
      const src = join(root, group, name, "src");
      try {
        walk(src);
      } catch {
        // A workspace without src/ holds no code of its own.
      }
    }
  }
  return out;
}

/** The files whose text matches `pattern`, outside core and outside `allowed`. */
function offenders(sources: Sources, pattern: RegExp, allowed: AllowList, coreToo = false): string[] {
  return [...sources]
    .filter(
      ([path, text]) =>
        (coreToo || !path.startsWith("packages/core/")) && !(path in allowed) && pattern.test(text),
    )
    .map(([path]) => path)
    .sort();
}

/** Listing folders (a walk of a skill folder) outside core's walker and the places allowed. */
export function walkers(sources: Sources, allowed: AllowList): string[] {
  return offenders(sources, /\b(readdir|readdirSync|opendir|opendirSync|fdir)\b/, allowed, true).filter(
    (path) => path !== "packages/core/src/files/folder-walk.ts",
  );
}

/** Streaming or copying files (a skill file read or copied beside core's reader) outside core. */
export function privateReaders(sources: Sources, allowed: AllowList): string[] {
  return offenders(sources, /\b(createReadStream|copyFile|copyFileSync|cpSync|cp)\(/, allowed);
}

/** Writing files outside core's three verbs (stageSkillFolder, writeInside, linkInside). */
export function privateWriters(sources: Sources, allowed: AllowList): string[] {
  return offenders(
    sources,
    /\b(writeFile|writeFileSync|createWriteStream|appendFile|symlink)\(|\bopen\([^)]*,\s*["'](w|a)/,
    allowed,
  );
}

/** A second path-containment rule: a lexical "is this path inside that one" outside core's `isInside`. */
export function pathRules(sources: Sources, allowed: AllowList): string[] {
  const definesOne =
    /\bfunction\s+(isWithin\w*|isInside\w*|inside|within)\s*\(|\.startsWith\([^)]*(\+\s*sep\b|\$\{sep\})/;
  return offenders(sources, definesOne, allowed, true).filter(
    (path) => path !== "packages/core/src/files/inside.ts",
  );
}

/**
 * A second copy of one of core's small mechanisms: a function of the same job (a mapping check,
 * an error's text or code, an abort error, a digest, a URL's credentials) defined outside core's
 * `util/` and `files/digest.ts`.
 */
export function secondMechanisms(sources: Sources): string[] {
  const definesOne =
    /\b(function\s+|const\s+)(isRecord|isMapping|isObject|isPlainObject|errorMessage|errnoOf|abortError|sha256Digest|isDigest|redactUrl|redactText|withoutCredentials)\b/;
  return offenders(sources, definesOne, {}, true).filter(
    (path) => !path.startsWith("packages/core/src/util/") && path !== "packages/core/src/files/digest.ts",
  );
}

/** Published packages' sources that import the private test helpers. */
export function testHelperImports(sources: Sources): string[] {
  return [...sources]
    .filter(([path, text]) => path.startsWith("packages/") && /from\s+["']@skill\/test-utils["']/.test(text))
    .map(([path]) => path)
    .sort();
}

/** The relative imports of a file, as repository paths (`.js` specifiers name `.ts` sources). */
function importsOf(path: string, text: string, sources: Sources): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["'](\.{1,2}\/[^"']+)["']/g)) {
    const target = posix.normalize(posix.join(posix.dirname(path), (m[1] as string).replace(/\.js$/, ".ts")));
    if (sources.has(target)) out.push(target);
  }
  return out;
}

/** Every import circle among the sources, each as its files in order (the first repeated last). */
export function importCircles(sources: Sources): string[][] {
  const graph = new Map([...sources].map(([path, text]) => [path, importsOf(path, text, sources)]));
  const circles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") circles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return circles;
}

/** What each published package may import of ours (DESIGN §1): core, and the composing packages' own. */
export const DEPENDENCY_RULE: Readonly<Record<string, readonly string[]>> = {
  core: [],
  tool: ["core", "format"],
  install: ["core", "lock", "discovery"],
};

/** Imports of `@skill/*` that the dependency rule does not allow, as `path: @skill/name`. */
export function ruleBreaks(sources: Sources): string[] {
  const out: string[] = [];
  for (const [path, text] of sources) {
    const pkg = /^packages\/([^/]+)\//.exec(path)?.[1];
    if (pkg === undefined) continue;
    const allowed = DEPENDENCY_RULE[pkg] ?? ["core"];
    for (const m of text.matchAll(/from\s+["']@skill\/([^"'/]+)/g)) {
      const name = m[1] as string;
      if (name !== pkg && !allowed.includes(name) && name !== "test-utils")
        out.push(`${path}: @skill/${name}`);
    }
  }
  return out.sort();
}

/** The repository root, from this file. */
export const ROOT = join(dirname(new URL(import.meta.url).pathname), "..");
