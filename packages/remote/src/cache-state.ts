import { lstat, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { nameProblem } from "./safe-path.js";

/** Revalidation facts about one cached file. */
export interface FileState {
  readonly etag?: string;
  readonly lastModified?: string;
  readonly size: number;
}

export interface SkillState {
  readonly version?: string;
  readonly files: Readonly<Record<string, FileState>>;
}

/** What the cache knows about a pack; written last, so it always describes the skills in place. */
export interface PackState {
  readonly format: 1;
  readonly url: string;
  /** The pull that wrote this file; its `.old-<pullId>-*` leftovers are safe to delete. */
  readonly pullId: string;
  readonly pulledAt: string;
  readonly skills: Readonly<Record<string, SkillState>>;
}

export const STATE_FILE = ".state.json";
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function readFileState(value: unknown): FileState | undefined {
  if (!isRecord(value) || typeof value.size !== "number") return undefined;
  return {
    size: value.size,
    ...(typeof value.etag === "string" ? { etag: value.etag } : {}),
    ...(typeof value.lastModified === "string" ? { lastModified: value.lastModified } : {}),
  };
}

/** The pack's state, or `undefined` when there is none (never pulled) or it is unreadable. */
export async function readState(packDir: string): Promise<PackState | undefined> {
  const path = join(packDir, STATE_FILE);
  try {
    if (!(await lstat(path)).isFile()) return undefined;
    const value: unknown = JSON.parse(await readFile(path, "utf8"));
    if (!isRecord(value) || value.format !== 1 || !isRecord(value.skills)) return undefined;
    if (typeof value.pullId !== "string" || typeof value.url !== "string") return undefined;
    const skills = table<SkillState>();
    for (const [name, raw] of Object.entries(value.skills)) {
      if (!isRecord(raw) || !isRecord(raw.files)) continue;
      const files = table<FileState>();
      for (const [file, meta] of Object.entries(raw.files)) {
        const state = readFileState(meta);
        if (state) files[file] = state;
      }
      skills[name] = { files, ...(typeof raw.version === "string" ? { version: raw.version } : {}) };
    }
    return {
      format: 1,
      url: value.url,
      pullId: value.pullId,
      pulledAt: typeof value.pulledAt === "string" ? value.pulledAt : "",
      skills,
    };
  } catch {
    return undefined;
  }
}

/** Writes the state durably: a new file, flushed, then renamed over the old one. */
export async function writeState(packDir: string, state: PackState): Promise<void> {
  const temp = join(packDir, `${STATE_FILE}.${state.pullId}.tmp`);
  const handle = await open(temp, "wx");
  try {
    await handle.writeFile(`${JSON.stringify(state, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, join(packDir, STATE_FILE));
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
    if (entry.startsWith(STAGING_PREFIX) || (entry.startsWith(`${STATE_FILE}.`) && entry.endsWith(".tmp"))) {
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
 * link planted in the cache is never read through nor trusted.
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
      const parts = file.split("/");
      for (let i = 1; i < parts.length; i++) {
        if (!(await isPlainDir(join(dir, ...parts.slice(0, i))))) return;
      }
      try {
        if ((await lstat(join(dir, ...parts))).isFile()) present.add(file);
      } catch {
        // Missing: it will be downloaded.
      }
    }),
  );
  return present;
}
