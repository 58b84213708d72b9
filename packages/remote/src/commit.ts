import { lstat, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { compareCodeUnits, errnoOf } from "@skill/core";
import { oldName, type PackState, writeIndexCopy, writeState } from "./cache-state.js";
import type { Outcome } from "./download.js";
import { cacheError } from "./options.js";
import { foldKey } from "./safe-path.js";

/** Skills swapped into place at once on commit. */
const PARALLEL_MOVES = 16;

interface Move {
  readonly target: string;
  readonly old: string;
  movedOld: boolean;
  installed: boolean;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return false;
    throw error;
  }
}

/**
 * Removes the scratch folders of staged skills. After a commit, a scratch folder that was itself
 * the skill folder is gone already (renamed into place): `committed` skips those.
 */
export async function discard(outcomes: readonly Outcome[], committed = false): Promise<void> {
  const work = outcomes.flatMap((o) =>
    o.kind === "staged" && !(committed && o.staging === o.work) ? [o.work] : [],
  );
  for (let i = 0; i < work.length; i += PARALLEL_MOVES) {
    await Promise.all(
      work.slice(i, i + PARALLEL_MOVES).map((w) => rm(w, { recursive: true, force: true }).catch(() => {})),
    );
  }
}

/**
 * The skill folders to remove: those no longer listed. A folder that differs from a listed name
 * only in letter case goes too (the skill was renamed), unless it is that skill's only copy on a
 * filesystem that folds case.
 */
function unlisted(
  entries: readonly string[],
  listed: ReadonlySet<string>,
  replaced: ReadonlySet<string>,
): string[] {
  const present = new Set(entries);
  const byFold = new Map<string, string>();
  for (const name of listed) byFold.set(foldKey(name), name);
  return entries
    .filter((e) => {
      if (e.startsWith(".") || listed.has(e)) return false;
      const owner = byFold.get(foldKey(e));
      if (owner === undefined) return true;
      // Renamed in letter case: the old folder is stale when the new one is there beside it, or
      // about to be put in place (on a case-folding filesystem they are one folder, moved aside first).
      return present.has(owner) || replaced.has(owner);
    })
    .sort(compareCodeUnits);
}

/**
 * Swaps staged skills in and unlisted ones out, then writes the index copy and the state: the
 * commit point. If anything fails before the state is written, every move is undone (and a
 * killed process is undone by `recover` on the next pull). Returns the names removed.
 */
export async function commit(
  packDir: string,
  outcomes: readonly Outcome[],
  listed: ReadonlySet<string>,
  state: PackState,
  indexText: string | undefined,
): Promise<string[]> {
  const staged = outcomes
    .filter((o): o is Extract<Outcome, { kind: "staged" }> => o.kind === "staged")
    .sort((a, b) => compareCodeUnits(a.entry.name, b.entry.name));
  const replaced = new Set(staged.map((o) => o.entry.name));
  const moves: Move[] = [];
  let removed: string[] = [];
  try {
    removed = unlisted(await readdir(packDir), listed, replaced);
    const move = async (name: string, staging?: string) => {
      const m: Move = {
        target: join(packDir, name),
        old: join(packDir, oldName(state.pullId, name)),
        movedOld: false,
        installed: false,
      };
      moves.push(m);
      if (await exists(m.target)) {
        await rename(m.target, m.old);
        m.movedOld = true;
      }
      if (staging) {
        await rename(staging, m.target);
        m.installed = true;
      }
    };
    // Removals first: a skill renamed only in letter case is moved aside before its new folder lands.
    for (const name of removed) await move(name);
    // Listed names never fold to one another, so their swaps are independent: a few at a time.
    for (let i = 0; i < staged.length; i += PARALLEL_MOVES) {
      const batch = staged.slice(i, i + PARALLEL_MOVES).map((o) => move(o.entry.name, o.staging));
      const failed = (await Promise.allSettled(batch)).find((r) => r.status === "rejected");
      if (failed) throw failed.reason;
    }
    if (indexText !== undefined) await writeIndexCopy(packDir, state.pullId, indexText);
    await writeState(packDir, state);
  } catch (error) {
    for (const m of moves.reverse()) {
      if (m.installed) await rm(m.target, { recursive: true, force: true }).catch(() => {});
      if (m.movedOld) await rename(m.old, m.target).catch(() => {});
    }
    await discard(outcomes);
    throw cacheError(error, packDir);
  }
  for (const m of moves) if (m.movedOld) await rm(m.old, { recursive: true, force: true }).catch(() => {});
  await discard(outcomes, true);
  return removed;
}
