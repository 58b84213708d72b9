import { lstat, realpath } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { isInside, loadSkillFile, printable, SKILL_FILE, SkillError } from "@skill/core";
import { DEFAULT_MAX_DIRS, scanSkillFiles } from "@skill/discovery";
import { inOrder } from "./limit.js";

/** A skill found in a source. */
export interface FoundSkill {
  readonly name: string;
  /** The skill folder (inside the source by real path). */
  readonly dir: string;
  /** Its SKILL.md relative to the source, `/`-separated. */
  readonly skillPath: string;
  /** well-known sources: the index's digest of the skill, as the pull verified it. */
  readonly digest?: string;
  /** The description its SKILL.md gives, as core parsed it when the skill was found. */
  readonly description?: string;
}

/** What a source holds: its skills, and the paths passed over with why. */
export interface FoundSkills {
  readonly skills: FoundSkill[];
  readonly skipped: { readonly path: string; readonly reason: string }[];
}

function posix(path: string): string {
  return path.split(sep).join("/");
}

/**
 * The skills of the source folder `root`: its own SKILL.md when it has one, else every
 * SKILL.md below it, found by discovery's scan (links to `/`, the home folder or above the
 * source are not followed; at most {@link DEFAULT_MAX_DIRS} folders). A skill folder whose
 * real path leaves the source (a committed `skills/leak -> /some/folder`) is skipped as
 * `outside-source` and never read; a SKILL.md that does not parse is skipped with its reason.
 */
export async function findSkills(
  root: string,
  options: { readonly home: string; readonly signal?: AbortSignal },
): Promise<FoundSkills> {
  const realRoot = await realpath(root);
  const skipped: { path: string; reason: string }[] = [];
  const own = await lstat(join(root, SKILL_FILE)).catch(() => undefined);
  const files = own?.isFile()
    ? [join(root, SKILL_FILE)]
    : await scanSkillFiles(root, {
        home: options.home,
        maxDirs: DEFAULT_MAX_DIRS,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        onSkip: (s) => {
          if (s.reason === "link-to-ancestor" || s.reason === "max-dirs" || s.reason === "symlink-loop") {
            skipped.push({ path: posix(relative(root, s.path)), reason: s.reason });
          }
        },
      });
  const found = await inOrder(files, 8, async (file) => {
    const rel = posix(relative(root, file)) || SKILL_FILE;
    const real = await realpath(file).catch(() => undefined);
    if (
      real === undefined ||
      !isInside(realRoot, real) ||
      !isInside(realRoot, await realpath(dirname(file)))
    ) {
      skipped.push({ path: rel, reason: "outside-source" });
      return undefined;
    }
    try {
      const { skill } = await loadSkillFile(real);
      const found: FoundSkill = {
        name: skill.name,
        dir: dirname(real),
        skillPath: rel,
        description: skill.description,
      };
      return found;
    } catch (error) {
      if (!SkillError.isInstance(error) || error.code === "ABORTED") throw error;
      skipped.push({ path: rel, reason: `${error.code}: ${printable(error.message)}` });
      return undefined;
    }
  });
  skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { skills: found.filter((s): s is FoundSkill => s !== undefined), skipped };
}

/**
 * The real path of `path` (a file or folder of the fetched source `realRoot`, found by core's
 * path rule), which must stay in the source: a link cannot lead out of it. `undefined` when
 * there is nothing there.
 *
 * @throws SkillError `UNSAFE_PATH` naming `shown` (as the source or lock gave it), `source`
 *   and `at` when it leads out
 */
export async function realInSource(
  realRoot: string,
  path: string,
  names: { readonly shown: string; readonly source: string; readonly at: string },
): Promise<string | undefined> {
  const real = await realpath(path).catch(() => undefined);
  if (real !== undefined && !isInside(realRoot, real)) {
    throw new SkillError(
      "UNSAFE_PATH",
      `Unsafe path: ${printable(names.shown)} leads out of ${printable(names.source)} (to ${real}); nothing of it is read`,
      { path: names.at },
    );
  }
  return real;
}
