import { readInside, type SkillFile } from "@skill/core";
import { hashedSkillFiles } from "@skill/lock";

/** The files of two skill folders (those `computedHash` covers) added, removed or changed. */
export interface FileChanges {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** Different bytes, or an exec bit gained or lost. */
  readonly changed: readonly string[];
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/** What changed from the skill folder `before` to `after`; every byte read through core's reader. */
export async function fileChanges(before: string, after: string): Promise<FileChanges> {
  const [a, b] = await Promise.all([hashedSkillFiles(before), hashedSkillFiles(after)]);
  const inB = new Map(b.map((f) => [f.path, f]));
  const inA = new Set(a.map((f) => f.path));
  const changed: string[] = [];
  const read = (dir: string, file: SkillFile) =>
    readInside(dir, file.path, { maxBytes: Number.POSITIVE_INFINITY });
  for (const file of a) {
    const other = inB.get(file.path);
    if (other === undefined) continue;
    if (file.executable !== other.executable || file.size !== other.size) {
      changed.push(file.path);
      continue;
    }
    const [x, y] = await Promise.all([read(before, file), read(after, other)]);
    if (!sameBytes(x, y)) changed.push(file.path);
  }
  return {
    added: b.filter((f) => !inA.has(f.path)).map((f) => f.path),
    removed: a.filter((f) => !inB.has(f.path)).map((f) => f.path),
    changed,
  };
}
