import { SkillError } from "../spec/errors.js";
import type { ScanContext, SkillSource, SourceEntry, SourceScan } from "../spec/skill-source.js";
import { abortError, isAbortOf, raceAbort } from "../util/abort.js";
import { errorMessage } from "../util/error-text.js";
import type { EntryLoader, EntryOwner } from "./entry-loader.js";
import type { Slot } from "./precedence.js";
import { emptyGroup, findSlot, type Group, ownerOf, type Registry } from "./registry.js";
import { Limiter, SliceReader } from "./scheduling.js";

/** Entries with their own `read` (memory, MCP, archives) read at once, at most. */
const READ_CONCURRENCY = 16;

/** Every source's scan, settled: a source that fails fails alone. */
export function scanSources(
  sources: readonly SkillSource[],
  ctx: ScanContext,
): Promise<PromiseSettledResult<SourceScan>[]> {
  return Promise.allSettled(sources.map((source) => scanOf(source, ctx)));
}

/** Calls `source.scan` so that a synchronous throw becomes a rejection. */
function scanOf(source: SkillSource, ctx: ScanContext): Promise<SourceScan> {
  return new Promise<SourceScan>((resolve) => resolve(source.scan(ctx)));
}

/** The scan a source returned, checked against the port: anything else fails that source alone. */
function checkScan(value: unknown, id: string): SourceScan {
  const scan = value as Partial<SourceScan> | undefined;
  const problem =
    typeof value !== "object" || value === null
      ? `found ${value === null ? "null" : typeof value}`
      : !Array.isArray(scan?.entries)
        ? Array.isArray((value as { files?: unknown }).files)
          ? "found `files` (a source returns `entries: [{ location }]` since contract 2)"
          : "`entries` is not a list"
        : scan.entries.some((e) => typeof e !== "object" || e === null || typeof e.location !== "string")
          ? "an entry has no string `location`"
          : scan.dirs !== undefined && !Array.isArray(scan.dirs)
            ? "`dirs` is not a list"
            : scan.diagnostics !== undefined && !Array.isArray(scan.diagnostics)
              ? "`diagnostics` is not a list"
              : undefined;
  if (problem !== undefined) {
    throw new SkillError(
      "INVALID_FIELD",
      `Skill source ${id} returned an invalid scan: expected { entries, dirs, diagnostics? }, ${problem}`,
      { path: id },
    );
  }
  return scan as SourceScan;
}

export function entryOwner(source: SkillSource | undefined): EntryOwner {
  if (!source) return {};
  return { id: source.id, ...(source.precedence === "first-wins" ? { firstWins: true } : {}) };
}

/**
 * Turns settled scans into groups, reading entries; rejects only with the caller's `ABORTED`.
 * `scans[i]` is the scan of `sources[i]`.
 */
export async function loadScans(
  sources: readonly SkillSource[],
  scans: PromiseSettledResult<SourceScan>[],
  loader: EntryLoader,
  ctx: ScanContext,
): Promise<Group[]> {
  const signal = ctx.signal;
  const reader = new SliceReader(signal);
  const limit = new Limiter(READ_CONCURRENCY);
  // Every read is observed as soon as it starts: an abort half-way leaves no rejection unhandled.
  const pending: Promise<void>[] = [];
  let abort: unknown;
  const groups: Group[] = [];
  for (let i = 0; i < sources.length; i++) {
    const source = sources[i] as SkillSource;
    const settled = scans[i] as PromiseSettledResult<SourceScan>;
    let scan: SourceScan;
    try {
      if (settled.status === "rejected") throw settled.reason;
      scan = checkScan(settled.value, source.id);
    } catch (reason) {
      groups.push(failedGroup(source, reason, signal));
      continue;
    }
    const owner = entryOwner(source);
    const slots = new Array<Slot>(scan.entries.length);
    for (let j = 0; j < scan.entries.length; j++) {
      const entry = scan.entries[j] as SourceEntry;
      if (entry.read && !entry.head) {
        const read = limit.run(() =>
          signal?.aborted ? Promise.reject(abortError(signal)) : loader.entrySlot(entry, owner, ctx),
        );
        pending.push(
          read.then(
            (slot) => {
              slots[j] = slot;
            },
            (error: unknown) => {
              abort ??= error;
            },
          ),
        );
      } else {
        slots[j] = loader.fileSlot(entry, owner);
        // Checked here, every 8 entries: an await (or a clock read) per entry costs more
        // than most entries' own work.
        if ((j & 7) === 7 && reader.due()) await reader.tick();
      }
    }
    groups.push(groupOf(source, scan, slots));
  }
  await raceAbort(Promise.all(pending), signal);
  if (signal?.aborted || abort !== undefined) throw abort ?? abortError(signal);
  return groups;
}

/** The group of a source whose scan failed; the caller's abort is thrown instead. */
function failedGroup(source: SkillSource, reason: unknown, signal: AbortSignal | undefined): Group {
  const error = SkillError.isInstance(reason)
    ? reason
    : new SkillError("READ_ERROR", `Skill source ${source.id} failed to scan: ${errorMessage(reason)}`, {
        path: source.id,
        cause: reason,
      });
  if (isAbortOf(error, signal)) throw error;
  return { ...emptyGroup(source), failure: { path: source.id, error } };
}

/** The group of a scanned source: its dirs, slots, findings (each naming the source) and skips. */
function groupOf(source: SkillSource, scan: SourceScan, slots: Slot[]): Group {
  return {
    source,
    dirs: [...(scan.dirs ?? [])],
    slots,
    diagnostics: (scan.diagnostics ?? []).map((d) =>
      d.source === undefined ? { ...d, source: source.id } : d,
    ),
    ...(Array.isArray(scan.skipped) ? { skipped: scan.skipped } : {}),
  };
}

/**
 * Re-reads `locations` against the registry `before`: each one's fresh slot, `undefined` when
 * it is gone; a location no source holds is left out.
 */
export async function rereadLocations(
  before: Registry,
  locations: readonly string[],
  loader: EntryLoader,
  ctx: ScanContext,
): Promise<Map<string, Slot | undefined>> {
  const read = new Map<string, Slot | undefined>();
  await raceAbort(
    Promise.all(
      locations.map(async (location) => {
        const known = findSlot(before.groups, location);
        const group = known?.group ?? ownerOf(before.groups, location);
        if (!group) return;
        const entry: SourceEntry = known?.slot.entry ?? { location };
        const owner = entryOwner(group.source);
        const slot =
          entry.read && !entry.head
            ? await loader.entrySlot(entry, owner, ctx)
            : loader.fileSlot(entry, owner);
        read.set(location, isGone(slot) ? undefined : slot);
      }),
    ),
    ctx.signal,
  );
  return read;
}

/** A re-read that found nothing there: the location was removed. */
function isGone(slot: Slot): boolean {
  return !slot.outcome.ok && slot.outcome.error.code === "NOT_FOUND";
}
