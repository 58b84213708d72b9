import { lstat, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { compareCodeUnits, isMapping, resolveInside } from "@skill/core";
import { legacyDirName } from "./cache-dir.js";
import { nameProblem } from "./safe-path.js";

/** Revalidation facts about one cached file. */
export interface FileState {
  readonly etag?: string;
  readonly lastModified?: string;
  readonly size: number;
  /** SHA-256 (hex) of the bytes written, so `verifyCache` can spot later edits. */
  readonly sha256?: string;
}

export interface SkillState {
  readonly version?: string;
  /** v0.2: the entry's `digest` the cached copy was verified against. */
  readonly digest?: string;
  readonly type?: "skill-md" | "archive";
  /** v0.2: the artifact URL it came from (resolved). */
  readonly url?: string;
  readonly files: Readonly<Record<string, FileState>>;
  /**
   * The frontmatter of the verified `SKILL.md`, as core parses it: with its recorded size and
   * SHA-256 it is the skill's head, so a load reads nothing and a read verifies the bytes.
   */
  readonly frontmatter?: Readonly<Record<string, unknown>>;
}

/** Validators of the index last read, sent back on the next pull. */
export interface IndexState {
  readonly url: string;
  readonly etag?: string;
  readonly lastModified?: string;
}

/** What the cache knows about a pack; written last, so it always describes the skills in place. */
export interface PackState {
  readonly format: 1;
  readonly url: string;
  /** The pull that wrote this file; its `.old-<pullId>-*` leftovers are safe to delete. */
  readonly pullId: string;
  readonly pulledAt: string;
  /** When the index was last checked with the server (ISO time), whether or not anything changed. */
  readonly checkedAt?: string;
  readonly index?: IndexState;
  readonly skills: Readonly<Record<string, SkillState>>;
}

export const STATE_FILE = ".state.json";
/** The index body last read, kept so a 304 can be answered from it. */
export const INDEX_FILE = ".index.json";
export const LOCK_FILE = ".lock";
export const STAGING_PREFIX = ".tmp-";
const OLD = /^\.old-([0-9a-f]{8})-(.+)$/;

export function oldName(pullId: string, name: string): string {
  return `.old-${pullId}-${name}`;
}

/**
 * An empty map keyed by skill names or file paths. No prototype: a skill named `constructor`
 * or `__proto__` is an ordinary key, never an inherited property.
 */
export function table<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

function readFileState(value: unknown): FileState | undefined {
  if (!isMapping(value) || typeof value.size !== "number") return undefined;
  return {
    size: value.size,
    ...(typeof value.etag === "string" ? { etag: value.etag } : {}),
    ...(typeof value.lastModified === "string" ? { lastModified: value.lastModified } : {}),
    ...(typeof value.sha256 === "string" ? { sha256: value.sha256 } : {}),
  };
}

function readIndexState(value: unknown): IndexState | undefined {
  if (!isMapping(value) || typeof value.url !== "string") return undefined;
  return {
    url: value.url,
    ...(typeof value.etag === "string" ? { etag: value.etag } : {}),
    ...(typeof value.lastModified === "string" ? { lastModified: value.lastModified } : {}),
  };
}

function optionalString<K extends string>(raw: Record<string, unknown>, key: K): { [P in K]?: string } {
  const value = raw[key];
  return (typeof value === "string" ? { [key]: value } : {}) as { [P in K]?: string };
}

/** The pack's state, or `undefined` when there is none (never pulled) or it is unreadable. */
export async function readState(packDir: string): Promise<PackState | undefined> {
  const path = join(packDir, STATE_FILE);
  try {
    if (!(await lstat(path)).isFile()) return undefined;
    const value: unknown = JSON.parse(await readFile(path, "utf8"));
    if (!isMapping(value) || value.format !== 1 || !isMapping(value.skills)) return undefined;
    if (typeof value.pullId !== "string" || typeof value.url !== "string") return undefined;
    const skills = table<SkillState>();
    for (const [name, raw] of Object.entries(value.skills)) {
      if (!isMapping(raw) || !isMapping(raw.files)) continue;
      const files = table<FileState>();
      for (const [file, meta] of Object.entries(raw.files)) {
        const state = readFileState(meta);
        if (state) files[file] = state;
      }
      const type: Pick<SkillState, "type"> =
        raw.type === "skill-md" || raw.type === "archive" ? { type: raw.type } : {};
      skills[name] = {
        files,
        ...(isMapping(raw.frontmatter) ? { frontmatter: raw.frontmatter } : {}),
        ...optionalString(raw, "version"),
        ...optionalString(raw, "digest"),
        ...optionalString(raw, "url"),
        ...type,
      };
    }
    const index = readIndexState(value.index);
    return {
      format: 1,
      url: value.url,
      pullId: value.pullId,
      pulledAt: typeof value.pulledAt === "string" ? value.pulledAt : "",
      ...optionalString(value, "checkedAt"),
      ...(index ? { index } : {}),
      skills,
    };
  } catch {
    return undefined;
  }
}

/** Writes a cache file durably: a new file, flushed, then renamed over the old one. */
async function writeDurably(packDir: string, name: string, tag: string, text: string): Promise<void> {
  const temp = join(packDir, `${name}.${tag}.tmp`);
  const handle = await open(temp, "wx");
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, join(packDir, name));
}

/** Writes the state durably: a new file, flushed, then renamed over the old one. */
export async function writeState(packDir: string, state: PackState): Promise<void> {
  await writeDurably(packDir, STATE_FILE, state.pullId, `${JSON.stringify(state, null, 2)}\n`);
}

/** Keeps the index body the state's validators describe (written before the state). */
export async function writeIndexCopy(packDir: string, pullId: string, text: string): Promise<void> {
  await writeDurably(packDir, INDEX_FILE, pullId, text);
}

/** The index body kept by the last pull, or `undefined`. */
export async function readIndexCopy(packDir: string): Promise<string | undefined> {
  const path = join(packDir, INDEX_FILE);
  try {
    if (!(await lstat(path)).isFile()) return undefined;
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Puts the pack dir back into a consistent state after a pull that was killed: staging folders
 * go; a skill moved aside by a pull whose state was never written is moved back (the state on
 * disk still describes it); one moved aside by the pull that wrote the state is deleted.
 * Must run under the pack lock.
 */
export async function recover(packDir: string, state: PackState | undefined): Promise<void> {
  for (const entry of await readdir(packDir)) {
    const path = join(packDir, entry);
    const temp =
      (entry.startsWith(`${STATE_FILE}.`) || entry.startsWith(`${INDEX_FILE}.`)) && entry.endsWith(".tmp");
    if (entry.startsWith(STAGING_PREFIX) || temp) {
      await rm(path, { recursive: true, force: true });
      continue;
    }
    const old = OLD.exec(entry);
    if (!old) continue;
    const name = old[2] as string;
    if (old[1] === state?.pullId || nameProblem(name) !== undefined) {
      await rm(path, { recursive: true, force: true });
    } else {
      const target = join(packDir, name);
      await rm(target, { recursive: true, force: true });
      await rename(path, target);
    }
  }
}

/**
 * The files of `files` that exist in `dir` as regular files reached without a symlink, so a
 * link planted in the cache is never read through nor trusted: a presence check, stricter than
 * core's reader (which follows a link that stays inside), and reading nothing. Each path is
 * placed by core's path rule; one it refuses is not present.
 */
export async function presentFiles(dir: string, files: readonly string[]): Promise<Set<string>> {
  const present = new Set<string>();
  const dirs = new Map<string, Promise<boolean>>();
  const isPlainDir = (path: string) => {
    let known = dirs.get(path);
    if (!known) {
      known = lstat(path).then(
        (s) => s.isDirectory(),
        () => false,
      );
      dirs.set(path, known);
    }
    return known;
  };
  if (!(await isPlainDir(dir))) return present;
  await Promise.all(
    files.map(async (file) => {
      let path: string;
      try {
        path = resolveInside(dir, file);
      } catch {
        return;
      }
      const parts = file.split("/").filter((p) => p !== "" && p !== ".");
      for (let i = 1; i < parts.length; i++) {
        if (!(await isPlainDir(join(dir, ...parts.slice(0, i))))) return;
      }
      try {
        if ((await lstat(path)).isFile()) present.add(file);
      } catch {
        // Missing: it will be downloaded.
      }
    }),
  );
  return present;
}

/**
 * The pack folders under `cacheDir` (sorted absolute paths): its own bookkeeping, not a skill
 * folder, so it is read here and not by core's walker. A missing cache holds none.
 */
export async function packDirs(cacheDir: string): Promise<string[]> {
  try {
    return (await readdir(cacheDir, { withFileTypes: true }))
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => join(cacheDir, e.name))
      .sort(compareCodeUnits);
  } catch {
    return [];
  }
}

function sameUrl(a: string, b: string): boolean {
  try {
    const x = new URL(a);
    const y = new URL(b);
    x.hash = "";
    y.hash = "";
    return x.href === y.href;
  } catch {
    return false;
  }
}

/**
 * A copy of this exact URL in the folder caches used before index queries were part of the
 * key (see `legacyDirName`): read, never written, until a pull fills the pack's own folder.
 */
export async function legacyCopy(
  cacheDir: string,
  url: string,
): Promise<{ readonly packDir: string; readonly state: PackState } | undefined> {
  const name = legacyDirName(url);
  if (name === undefined) return undefined;
  const packDir = join(cacheDir, name);
  const state = await readState(packDir);
  return state && sameUrl(state.url, url) ? { packDir, state } : undefined;
}

/** The pack's cached state: its own folder's, else a legacy folder's copy of the same URL. */
export async function cachedState(
  cacheDir: string,
  url: string,
  packDir: string,
): Promise<{ readonly packDir: string; readonly state: PackState } | undefined> {
  const state = await readState(packDir);
  if (state) return { packDir, state };
  return legacyCopy(cacheDir, url);
}
