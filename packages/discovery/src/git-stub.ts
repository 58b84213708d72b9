import { sep } from "node:path";
import { readInside, SKILL_FILE, type SkillFile, skillFiles } from "@skill/core";

// A skill folder that was a symlink in git, checked out where links cannot be made: a small
// file holding the link's target instead of a folder.

/** A git symlink stub is the link target written into a file: short, one line, a path. */
const STUB_MAX_BYTES = 1024;

/** The text of a small file, through core's safe reader; `undefined` when it is not one. */
export async function smallText(dir: string, path: string): Promise<string | undefined> {
  try {
    const bytes = await readInside(dir, path, { maxBytes: STUB_MAX_BYTES });
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  } catch {
    return undefined;
  }
}

/** One short line holding a path: what git writes for a symlink when it cannot make one. */
export function looksLikeStub(text: string): boolean {
  if (text.length === 0 || text.length > STUB_MAX_BYTES) return false;
  const line = text.endsWith("\n") ? text.slice(0, -1) : text;
  return !/[\n\r\0]/.test(line) && line.includes("/") && !line.startsWith("---") && !/\s{2}/.test(line);
}

/**
 * Small files directly in a scanned folder, each holding one path: symlinked skill folders
 * checked out as text. Listed by core's walker of a folder, read by its safe reader.
 */
export async function rootStubs(dirs: ReadonlySet<string>): Promise<Map<string, string>> {
  const found = await Promise.all(
    [...dirs].map(async (dir) => {
      let files: SkillFile[];
      try {
        // Its own files only: a stub stands for a skill folder directly in the root.
        files = await skillFiles(dir, {
          limit: Number.POSITIVE_INFINITY,
          maxBytes: Number.POSITIVE_INFINITY,
          maxDepth: 0,
        });
      } catch {
        return []; // missing, unreadable or too large to list: no stubs to report there
      }
      const stubs: [string, string][] = [];
      for (const file of files) {
        if (file.path.includes("/") || file.path === SKILL_FILE || file.link !== undefined) continue;
        if (file.size === 0 || file.size > STUB_MAX_BYTES) continue;
        const text = await smallText(dir, file.path);
        if (text !== undefined && looksLikeStub(text)) {
          stubs.push([dir.endsWith(sep) ? dir + file.path : dir + sep + file.path, text.trim()]);
        }
      }
      return stubs;
    }),
  );
  return new Map(found.flat());
}
