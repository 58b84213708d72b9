import { createHash } from "node:crypto";
import type { SkillFile } from "@skill/core";
import { readInside, SkillError, skillFiles } from "@skill/core";

// The one documented exception to code-unit order: `skills` sorts with `localeCompare`, and
// its lock files are written under an en_US locale. An explicit collator gives that order
// whatever the locale of this process.
const collator = new Intl.Collator("en-US");

/** Files {@link computedHash} reads ahead of the one it hashes. */
const READ_AHEAD = 8;

/** Whether `skills` hashes this entry of core's walk: regular files only, outside `node_modules`. */
function hashed(file: SkillFile): boolean {
  if (file.link !== undefined) return false; // a link, or a file reached through a linked folder
  return !file.path.split("/").slice(0, -1).includes("node_modules");
}

/**
 * The files `computedHash` covers, in the order it reads them: relative `/`-separated paths.
 *
 * Walked with core's `skillFiles(dir, { hidden: true, nested: true, limit: Infinity,
 * maxBytes: Infinity })` (dot-files and nested skill folders included, `.git` left out),
 * then filtered: links, and files reached through a linked folder, are left out, and so is
 * everything below a `node_modules` folder. Sorted with `new Intl.Collator("en-US")`.
 *
 * One difference with `skills` 1.7.4 remains: a *file* (not a folder) named `.git`, such as
 * a worktree's pointer file, is hashed by `skills` and never listed by core's walker.
 */
export async function hashedFiles(dir: string): Promise<string[]> {
  return (await hashedSkillFiles(dir)).map((file) => file.path);
}

/**
 * The files `computedHash` covers, as core's walker lists them (path, size, exec bit), in the
 * order {@link hashedFiles} gives: what an installer copies so that the copy hashes the same.
 */
export async function hashedSkillFiles(dir: string): Promise<SkillFile[]> {
  const files = await skillFiles(dir, { hidden: true, nested: true, limit: Infinity, maxBytes: Infinity });
  return files.filter(hashed).sort((a, b) => collator.compare(a.path, b.path));
}

/**
 * The `computedHash` of a skill folder, as Vercel's `skills` CLI (1.7.4) writes it in
 * `skills-lock.json`: sha256 over the folder's regular files (links, `.git` and
 * `node_modules` left out; see {@link hashedFiles}), sorted by relative path, each
 * contributing `utf8(path)` then its bytes, with no separators; lowercase hex.
 *
 * @throws SkillError `NOT_FOUND` / `READ_ERROR` for a missing or unreadable folder,
 *   `LIMIT_EXCEEDED` for a tree core's walker refuses (more than 16 levels, 100,000 entries).
 *
 * @example
 * await computedHash(".agents/skills/pdf"); // "3f1c…" (64 hex digits)
 */
export async function computedHash(dir: string): Promise<string> {
  return (await hashFolder(dir)).hash;
}

/** One file {@link hashFolder} hashed: its relative `/`-separated path, the bytes it hashed, and its exec bit. */
export interface HashedFile {
  readonly path: string;
  readonly bytes: Uint8Array;
  /** Any execute bit set (not part of the hash; a copy keeps it). */
  readonly executable: boolean;
}

/** Options of {@link hashFolder}. */
export interface HashFolderOptions {
  /**
   * Most bytes of file contents handed back in `files` (default 0: none). A folder holding
   * more is hashed all the same, and `files` is undefined.
   */
  readonly keepBytes?: number;
}

/** What {@link hashFolder} found: the `computedHash`, and the bytes it covers when they fit `keepBytes`. */
export interface HashedFolder {
  readonly hash: string;
  /** The files hashed, in the order hashed, with the very bytes hashed; undefined past `keepBytes`. */
  readonly files: readonly HashedFile[] | undefined;
}

/**
 * {@link computedHash} of `dir`, and with it the bytes it hashed while they total at most
 * `keepBytes`: a caller that copies the folder can write exactly what it hashed, reading each
 * file once. Walks, reads and refuses as {@link computedHash} does.
 *
 * @example
 * const { hash, files } = await hashFolder("skills/pdf", { keepBytes: 8 << 20 });
 * @throws SkillError as {@link computedHash}, and `INVALID_FIELD` for a `keepBytes` that is not a number >= 0.
 */
export async function hashFolder(dir: string, options: HashFolderOptions = {}): Promise<HashedFolder> {
  const keepBytes = options.keepBytes ?? 0;
  if (typeof keepBytes !== "number" || Number.isNaN(keepBytes) || keepBytes < 0) {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid keepBytes: expected a number >= 0 (or Infinity), found ${JSON.stringify(String(keepBytes))}`,
      { field: "keepBytes" },
    );
  }
  const hash = createHash("sha256");
  const listed = await hashedSkillFiles(dir);
  const paths = listed.map((file) => file.path);
  // A few files are read ahead while the hash takes them in order: the reads overlap, and no
  // more than READ_AHEAD files are held at once (besides those kept).
  const reads: Promise<Uint8Array>[] = [];
  const start = (i: number) => {
    const path = paths[i];
    if (path === undefined) return;
    const read = readInside(dir, path, { maxBytes: Infinity });
    read.catch(() => {}); // awaited in order below; a later file's failure must not go unhandled meanwhile
    reads[i] = read;
  };
  for (let i = 0; i < READ_AHEAD; i++) start(i);
  let kept: HashedFile[] | undefined = [];
  let keptBytes = 0;
  for (const [i, path] of paths.entries()) {
    const bytes = await (reads[i] as Promise<Uint8Array>);
    delete reads[i];
    hash.update(path, "utf8");
    hash.update(bytes);
    if (kept !== undefined) {
      keptBytes += bytes.length;
      if (keptBytes <= keepBytes) kept.push({ path, bytes, executable: listed[i]?.executable === true });
      else kept = undefined;
    }
    start(i + READ_AHEAD);
  }
  return { hash: hash.digest("hex"), files: kept };
}
