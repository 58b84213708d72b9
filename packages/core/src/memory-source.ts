import { compareCodeUnits } from "./text.js";
import type { SkillSource, SourceEntry } from "./types.js";

/** One skill held in memory: its SKILL.md text and, optionally, the files it bundles. */
export interface MemorySkill {
  /** A URI naming it, e.g. `builtin:pdf` or `builtin://tools/pdf/SKILL.md`. Unique in the source. */
  readonly location: string;
  /** The whole SKILL.md: frontmatter and body. */
  readonly text: string;
  /** Bundled files, relative and `/`-separated, as `SkillService.files` should list them. */
  readonly files?: readonly string[];
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
      const files = skill.files ? [...skill.files] : undefined;
      return {
        location: skill.location,
        read: async () => skill.text,
        ...(files === undefined ? {} : { listFiles: async () => files }),
      };
    });
  return {
    id,
    async scan() {
      return { entries, dirs: [] };
    },
  };
}
