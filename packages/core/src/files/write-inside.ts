import { constants, type Stats } from "node:fs";
import { lstat, mkdir, open, realpath, rename, rm, symlink } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { SkillError } from "../spec/errors.js";
import { abortError } from "../util/abort.js";
import { errnoOf } from "../util/errno.js";
import { errorMessage } from "../util/error-text.js";
import { isInside, resolveInside } from "./inside.js";

// Create only, never through a link at the last step, never block on a FIFO.
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/** What the writer knows of where it may write: `within` as given and as its real path. */
interface Bound {
  readonly within: string;
  readonly real: string;
}

function writeError(path: string, error: unknown): SkillError {
  if (SkillError.isInstance(error)) return error;
  const why = errnoOf(error) ?? errorMessage(error);
  return new SkillError("WRITE_ERROR", `Failed to write ${path} (${why})`, { path, cause: error });
}

function checkSignal(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw abortError(signal, `${what} was aborted`);
}

/**
 * `within` and its real path. A `within` that does not exist yet is made when `make` (it is the
 * caller's own folder, e.g. a `CLAUDE_CONFIG_DIR` not created yet); otherwise its real path is
 * its nearest existing folder's, plus the rest.
 */
async function boundOf(within: string, make = true, folderMode?: number): Promise<Bound> {
  const lexical = resolve(within);
  try {
    if (make)
      await mkdir(lexical, { recursive: true, ...(folderMode === undefined ? {} : { mode: folderMode }) });
    return { within: lexical, real: await realOrNearest(lexical) };
  } catch (error) {
    throw new SkillError(
      "WRITE_ERROR",
      `Cannot write inside ${lexical}: ${errnoOf(error) ?? String(error)}`,
      { path: lexical, cause: error },
    );
  }
}

/** The real path of `path`, or of its nearest existing ancestor joined with the rest. */
async function realOrNearest(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    const code = errnoOf(error);
    const parent = dirname(path);
    if ((code !== "ENOENT" && code !== "ENOTDIR") || parent === path) throw error;
    return join(await realOrNearest(parent), basename(path));
  }
}

async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    const code = errnoOf(error);
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

/**
 * Checks that `path` and every folder above it up to `bound.within` stay inside `bound` by real
 * path, looking at what exists now: a link on the way must lead inside, a file on the way is
 * in the way. Nothing is written unless `make`: then each missing folder on the way is made
 * (one at a time, never through a link) and the answer says whether one was.
 */
async function checkChain(bound: Bound, path: string, make = false, folderMode = 0o777): Promise<boolean> {
  const full = resolve(path);
  if (!isInside(bound.within, full) && !isInside(bound.real, full)) {
    throw new SkillError(
      "UNSAFE_PATH",
      `Unsafe path: ${full} is not inside ${bound.within}; nothing was written`,
      {
        path: full,
      },
    );
  }
  const top = isInside(bound.within, full) ? bound.within : bound.real;
  const parts = full === top ? [] : full.slice(top.length + (top.endsWith(sep) ? 0 : 1)).split(sep);
  let at = top;
  let made = false;
  for (const part of parts) {
    at = join(at, part);
    let stats = await lstatOrUndefined(at);
    if (stats === undefined) {
      if (!make) return false; // made below a folder already checked
      try {
        await mkdir(at, folderMode);
        made = true;
      } catch (error) {
        if (errnoOf(error) !== "EEXIST") throw error; // made meanwhile: judged below as found
      }
      stats = await lstat(at);
    }
    if (make && !stats.isDirectory() && !stats.isSymbolicLink()) {
      throw new SkillError(
        "UNSAFE_PATH",
        `Unsafe path: ${at} is a file where a folder is to be made; nothing was written through it`,
        { path: at },
      );
    }
    await checkLink(bound, at, stats);
  }
  return made;
}

/** Refuses `at` when it is a link (by `stats`) that leads nowhere or outside `bound`. */
async function checkLink(bound: Bound, at: string, stats: Stats): Promise<void> {
  if (!stats.isSymbolicLink()) return;
  const real = await realpath(at).catch(() => undefined);
  if (real === undefined || !isInside(bound.real, real)) {
    throw new SkillError(
      "UNSAFE_PATH",
      `Unsafe path: ${at} is a link ${real === undefined ? "to nothing" : `to ${real}`}, outside ${bound.within}; nothing was written through it`,
      { path: at },
    );
  }
}

/** {@link checkChain}'s last step alone, for `path` whose folders were just checked. */
async function checkStep(bound: Bound, path: string): Promise<void> {
  const stats = await lstatOrUndefined(path);
  if (stats !== undefined) await checkLink(bound, path, stats);
}

/**
 * Makes the folders of `rel` below `root` (a stage this writer made) one at a time, refusing
 * any that exists as a file or a link. `made` holds the folders made already: not asked again.
 */
async function makeFolders(root: string, rel: readonly string[], made: Set<string>): Promise<void> {
  let at = root;
  for (const part of rel) {
    at = join(at, part);
    if (made.has(at)) continue;
    try {
      await mkdir(at);
    } catch (error) {
      if (errnoOf(error) !== "EEXIST") throw error;
      const stats = await lstat(at);
      if (!stats.isDirectory()) {
        throw new SkillError(
          "UNSAFE_PATH",
          `Unsafe path: ${at} is ${stats.isSymbolicLink() ? "a link" : "a file"} where a folder is to be made; nothing was written through it`,
          { path: at },
        );
      }
    }
    made.add(at);
  }
}

/**
 * {@link checkChain} and {@link makeFolders} in one walk, for the folder that is to hold what is
 * written: each step that exists is checked as `checkChain` does (a link must lead inside, a
 * file is in the way), each that does not is made. Then, only when a folder was made, the whole
 * chain is checked again (a folder made on the way was not swapped for a link meanwhile).
 */
async function ensureChain(bound: Bound, folder: string, folderMode?: number): Promise<void> {
  if (await checkChain(bound, folder, true, folderMode)) await checkChain(bound, folder);
}

/**
 * Writes `bytes` to a new file `full` (never an existing one, never through a link), with
 * `mode` (less the umask).
 */
async function createFile(full: string, bytes: Uint8Array, mode: number): Promise<void> {
  const handle = await open(full, CREATE_FLAGS, mode);
  try {
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
}

/** Temporary names this process made, for unique names. */
let temps = 0;

/**
 * A temporary name beside `path`: unique among live processes by pid, within this one by a
 * count, and across hosts or containers sharing the folder by a random part. It need not be
 * unguessable: what is made under it is made exclusively (`O_EXCL`, `mkdir`), never through a
 * link. No random bytes from node:crypto: a CLI that loads it for this alone starts slower.
 */
function tempName(path: string, tag: string): string {
  const unique = `${process.pid}-${(++temps).toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  return join(dirname(path), `.${basename(path)}.${tag}-${unique}`);
}

/** Puts `fresh` at `dest`, moving what was there aside first and removing it after; on failure the old one goes back. */
async function replace(fresh: string, dest: string): Promise<void> {
  // Straight into place when nothing is there (or an empty folder): the common case, one call.
  try {
    await rename(fresh, dest);
    return;
  } catch (error) {
    if (!["EEXIST", "ENOTEMPTY", "ENOTDIR", "EISDIR"].includes(errnoOf(error) ?? "")) throw error;
  }
  const old = tempName(dest, "old");
  await rename(dest, old);
  try {
    await rename(fresh, dest);
  } catch (error) {
    await rename(old, dest).catch(() => {});
    throw error;
  }
  await rm(old, { recursive: true, force: true });
}

/**
 * Checks, without writing anything, what {@link stageSkillFolder}, {@link writeInside} and
 * {@link linkInside} check before they write to `path`: that it and every folder above it up to
 * `within` stay inside `within` by real path (a link on the way leading inside is fine). For a
 * plan that must refuse before anything of it is written.
 *
 * @throws SkillError `UNSAFE_PATH` naming the link (or path) that leaves `within`.
 */
export async function checkInside(path: string, options: { readonly within: string }): Promise<void> {
  await checkChain(await boundOf(options.within, false), path);
}

/** A skill folder being written beside its destination, then put in place whole (see {@link stageSkillFolder}). */
export interface SkillFolderStage {
  /** The staging folder, beside `dest`. */
  readonly path: string;
  /**
   * Writes one new file of the skill: `path` is relative and `/`-separated (core's path rule,
   * {@link resolveInside}); folders are made as needed; an existing file or a link on the way
   * is refused. `executable` gives it mode 0755 (else 0644), less the umask.
   */
  write(path: string, bytes: Uint8Array, options?: { readonly executable?: boolean }): Promise<void>;
  /**
   * Puts the staging folder at `dest`: whatever was there is moved aside, the stage renamed
   * into place, then the old one removed; on failure the old one is put back. Checks again
   * that `dest` stays inside `within` first.
   */
  commit(): Promise<void>;
  /** Removes the staging folder (after a failure, or instead of committing). */
  abort(): Promise<void>;
}

/**
 * The one writer of a whole skill folder (an install's placement, `skill init`, an archive's
 * extraction): a staging folder beside `dest` to {@link SkillFolderStage.write} files into,
 * then {@link SkillFolderStage.commit} to replace `dest` whole, so that a reader sees the old
 * folder or the new one, never half of one.
 *
 * `options.within` is the folder no byte may leave (a project root, a home folder, a cache):
 * it is real-pathed first, and `dest` and every folder above it up to `within` must stay inside
 * it by real path, so a checkout whose `.agents` is a link to `~/.claude` cannot redirect an
 * install. Checked before anything is written.
 *
 * @throws SkillError `UNSAFE_PATH` naming the link (or path) that leaves `within`,
 *   `WRITE_ERROR` (naming the path) when the staging folder cannot be made, `ABORTED`.
 * @example
 * const stage = await stageSkillFolder(join(project, ".agents/skills/pdf"), { within: project });
 * try {
 *   await stage.write("SKILL.md", bytes);
 *   await stage.commit();
 * } catch (error) {
 *   await stage.abort();
 *   throw error;
 * }
 */
export async function stageSkillFolder(
  dest: string,
  options: { readonly within: string; readonly signal?: AbortSignal },
): Promise<SkillFolderStage> {
  const { signal } = options;
  const target = resolve(dest);
  checkSignal(signal, `Writing ${target}`);
  const bound = await boundOf(options.within);
  const stagePath = tempName(target, "stage");
  const made = new Set<string>();
  try {
    await ensureChain(bound, dirname(target));
    await checkStep(bound, target);
    await mkdir(stagePath);
  } catch (error) {
    throw writeError(target, error);
  }
  let done = false;
  return {
    path: stagePath,
    async write(path, bytes, writeOptions = {}) {
      if (done) throw new SkillError("WRITE_ERROR", `Cannot write ${path}: the stage of ${target} is closed`);
      checkSignal(signal, `Writing ${target}`);
      const full = resolveInside(stagePath, path);
      try {
        await makeFolders(stagePath, relative(stagePath, dirname(full)).split(sep).filter(Boolean), made);
        await createFile(full, bytes, writeOptions.executable === true ? 0o755 : 0o644);
      } catch (error) {
        throw writeError(join(target, relative(stagePath, full)), error);
      }
    },
    async commit() {
      if (done) throw new SkillError("WRITE_ERROR", `Cannot commit ${target}: the stage is closed`);
      checkSignal(signal, `Writing ${target}`);
      await checkChain(bound, target);
      try {
        await replace(stagePath, target);
      } catch (error) {
        throw writeError(target, error);
      }
      done = true;
    },
    async abort() {
      done = true;
      await rm(stagePath, { recursive: true, force: true });
    },
  };
}

/** Options of {@link writeInside}. */
export interface WriteInsideOptions {
  /** Mode 0755 (else 0644), less the umask. */
  readonly executable?: boolean;
  /**
   * The file's mode, less the umask (default 0644, or 0755 when `executable`): 0600 for a file
   * only its owner may read, whose missing folders below `within` are then made 0700.
   */
  readonly mode?: number;
  /** The folder no byte may leave (default `root`); made when missing. */
  readonly within?: string;
}

/**
 * The one writer of a single file into a tree (`skill pack`'s output, a pack's commit, a lock
 * file, a cache or settings file): `bytes` to `path` below `root` (core's path rule), through
 * a new temporary file in the same folder renamed over the old one, so the file is old or new,
 * never half. Missing folders are made. A link at `path` is replaced, never written through.
 * `root` and every folder on the way must stay inside `within` (default `root`) by real path.
 *
 * @throws SkillError `UNSAFE_PATH` (a bad `path`, or a link leaving `within`), `WRITE_ERROR`
 *   naming the file, with the system error as `cause`.
 */
export async function writeInside(
  root: string,
  path: string,
  bytes: Uint8Array,
  options: WriteInsideOptions = {},
): Promise<void> {
  const full = resolveInside(root, path);
  // A file only its owner may read gets folders only its owner may enter, where it makes them.
  const folderMode = options.mode !== undefined && (options.mode & 0o077) === 0 ? 0o700 : undefined;
  const bound = await boundOf(options.within ?? root, true, folderMode);
  const temp = tempName(full, "write");
  try {
    await ensureChain(bound, dirname(full), folderMode);
    await createFile(temp, bytes, options.mode ?? (options.executable === true ? 0o755 : 0o644));
    await rename(temp, full);
  } catch (error) {
    // EEXIST: the temporary name is another writer's; its file is not ours to remove.
    if (errnoOf(error) !== "EEXIST") await rm(temp, { force: true }).catch(() => {});
    throw writeError(full, error);
  }
}

/**
 * The one maker of links between skill folders (an install's link from an agent's folder to
 * the canonical copy): `link` becomes a relative symbolic link to `target`, replacing what is
 * at `link` (a link, a file or a folder) through a rename. Both ends must stay inside `within`
 * by real path: the folder holding `link` and every folder above it, and `target`.
 *
 * @throws SkillError `UNSAFE_PATH` naming the link (or path) that leaves `within`, `NOT_FOUND`
 *   when `target` does not exist, `WRITE_ERROR`.
 */
export async function linkInside(
  link: string,
  target: string,
  options: { readonly within: string },
): Promise<void> {
  const at = resolve(link);
  const bound = await boundOf(options.within);
  await checkChain(bound, dirname(at));
  let realTarget: string;
  try {
    realTarget = await realpath(target);
  } catch (error) {
    throw new SkillError("NOT_FOUND", `Cannot link ${at} to ${resolve(target)}: it does not exist`, {
      path: resolve(target),
      cause: error,
    });
  }
  if (!isInside(bound.real, realTarget)) {
    throw new SkillError(
      "UNSAFE_PATH",
      `Unsafe path: ${resolve(target)} leads to ${realTarget}, outside ${bound.within}; no link was made`,
      { path: resolve(target) },
    );
  }
  const temp = tempName(at, "link");
  try {
    const parent = dirname(at);
    await ensureChain(bound, parent);
    const text = relative(await realpath(parent), realTarget);
    if (isAbsolute(text)) throw new Error(`no relative path from ${parent} to ${realTarget}`);
    await symlink(text === "" ? "." : text, temp);
    await replace(temp, at);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw writeError(at, error);
  }
}
