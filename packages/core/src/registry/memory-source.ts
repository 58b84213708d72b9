import { quote, SkillError } from "../spec/errors.js";
import type { SkillSource, SourceEntry } from "../spec/skill-source.js";
import { compareCodeUnits } from "../util/text.js";

/** One skill held in memory: its SKILL.md text and, optionally, the files it bundles. */
export interface MemorySkill {
  /** A URI naming it, e.g. `builtin:pdf` or `builtin://tools/pdf/SKILL.md`. Unique in the source. */
  readonly location: string;
  /** The whole SKILL.md: frontmatter and body. */
  readonly text: string;
  /** Bundled files, relative and `/`-separated, as `SkillService.files` should list them. */
  readonly files?: readonly string[];
  /** Bundled files with their contents, served by `SkillService.readFile` (and listed, when `files` is absent). */
  readonly contents?: Readonly<Record<string, string | Uint8Array>>;
}

/**
 * A source of skills that live in memory: built-in skills a harness ships, skills generated
 * at run time, or test fixtures. Nothing touches a disk; the text is parsed like a file.
 *
 * @example
 * const builtins = memorySource("builtin", [
 *   { location: "builtin:commit", text: "---\nname: commit\ndescription: Write commit messages\n---\n…" },
 * ]);
 * const service = new SkillService({ sources: [builtins, ...discoverySources({ cwd })] });
 */
export function memorySource(id: string, skills: readonly MemorySkill[]): SkillSource {
  const entries: SourceEntry[] = [...skills]
    .sort((a, b) => compareCodeUnits(a.location, b.location))
    .map((skill) => {
      const contents = new Map(Object.entries(skill.contents ?? {}));
      const files = skill.files ? [...skill.files] : [...contents.keys()];
      // Files are listed and read from memory only, even for a location that reads like a path:
      // a folder on disk of that name is never walked nor read.
      const entry: SourceEntry = {
        location: skill.location,
        read: async () => skill.text,
        listFiles: async () => files,
        readFile: async (path: string) => {
          const value = contents.get(path);
          if (value === undefined) {
            throw new SkillError(
              "NOT_FOUND",
              `Skill file not found: ${skill.location} has no ${quote(path)}`,
              {
                path,
              },
            );
          }
          return typeof value === "string" ? new TextEncoder().encode(value) : value;
        },
      };
      return entry;
    });
  return {
    id,
    async scan() {
      return { entries, dirs: [] };
    },
  };
}
