import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { SkillHit, SkillMetadata, SkillSearch, SkillSource, SourceEntry } from "@skill/core";

/** The text of a SKILL.md. */
export function skillText(name: string, description: string, extra = "", body = `# ${name}\n\nDo the ${name} thing.\n`): string {
  return `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n${extra}---\n${body}`;
}

/** One skill of a {@link countingSource}. */
export interface CountedSkill {
  readonly name: string;
  readonly description: string;
  /** Extra frontmatter lines, e.g. `disable-model-invocation: true\n`. */
  readonly extra?: string;
  readonly body?: string;
}

/**
 * A source of in-memory skills that counts every read of a SKILL.md, so a test sees whether
 * anything was read. `reads` counts since the source was made; `location` is `mem:<id>/<name>`.
 */
export function countingSource(id: string, skills: readonly CountedSkill[]): SkillSource & { reads: Map<string, number> } {
  const reads = new Map<string, number>();
  const entries: SourceEntry[] = skills.map((s) => ({
    location: `mem:${id}/${s.name}/SKILL.md`,
    async read() {
      reads.set(s.name, (reads.get(s.name) ?? 0) + 1);
      return skillText(s.name, s.description, s.extra ?? "", s.body);
    },
    async listFiles() {
      return [];
    },
  }));
  return {
    id,
    reads,
    async scan() {
      return { entries, dirs: [] };
    },
  };
}

/**
 * A tiny SkillSearch for tests: every query word found in a name or description scores one,
 * best first, then by name. It follows the registry through `replace`, and records what it
 * was given.
 */
export function substringSearch(): SkillSearch & { held: SkillMetadata[]; replaced: number; queries: string[] } {
  const state = {
    held: [] as SkillMetadata[],
    replaced: 0,
    queries: [] as string[],
    search(query: string, options?: { readonly limit?: number }): SkillHit[] {
      state.queries.push(query);
      const words = query.toLowerCase().split(/\W+/).filter(Boolean);
      return state.held
        .map((s) => {
          const text = `${s.name} ${s.description}`.toLowerCase();
          const terms = words.filter((w) => text.includes(w));
          return { name: s.name, score: terms.length, terms };
        })
        .filter((h) => h.score > 0)
        .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .slice(0, options?.limit ?? 10);
    },
    replace(skills: readonly SkillMetadata[]) {
      state.held = [...skills];
      state.replaced++;
    },
  };
  return state;
}

/** A search without `replace`, holding a fixed list of names (it may hold names the agent may not see). */
export function fixedSearch(names: readonly string[]): SkillSearch {
  return {
    search: (_query, options) =>
      names.slice(0, options?.limit ?? 10).map((name, i) => ({ name, score: names.length - i, terms: [] })),
  };
}

/** A fresh temp directory (real path), removed by the returned function. */
export async function tempDir(prefix = "skill-tool-"): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes files under `root` (relative path → content), creating folders. */
export async function writeTree(root: string, files: Readonly<Record<string, string | Uint8Array>>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}

/** A source over SKILL.md files on disk: `location` is the absolute path, so core reads and walks it. */
export function diskSource(id: string, root: string, names: readonly string[]): SkillSource {
  return {
    id,
    async scan() {
      return { entries: [...names].sort().map((n) => ({ location: join(root, n, "SKILL.md") })), dirs: [root] };
    },
  };
}

/** A source whose skills a test sets before each load (`state.skills`). */
export function settableSource(id: string): { source: SkillSource; state: { skills: CountedSkill[] } } {
  const state = { skills: [] as CountedSkill[] };
  const source: SkillSource = {
    id,
    async scan() {
      return {
        entries: state.skills.map((s) => ({
          location: `mem:${id}/${s.name}/SKILL.md`,
          read: async () => skillText(s.name, s.description, s.extra ?? "", s.body),
          listFiles: async () => [],
        })),
        dirs: [],
      };
    },
  };
  return { source, state };
}
