import { isAbsolute, sep } from "node:path";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { type AnalyzeOptions, analyzeSkill, strictRejection } from "./analyze.js";
import { printable, quote, SkillError } from "./errors.js";
import { listSkillFiles, normalizeFileList } from "./files.js";
import { guardLogger, publish } from "./logger.js";
import { type Outcome, type Resolution, resolvePrecedence, type Slot } from "./precedence.js";
import { checkMaxBytes, decodeEntry, readSkillFile, readSkillFileSync } from "./read-file.js";
import { compareCodeUnits } from "./text.js";
import type {
  AgentInfo,
  Diagnostic,
  LoadFailure,
  LoadReport,
  Logger,
  PermissionAction,
  ScanContext,
  ShadowedSkill,
  SkillEvents,
  SkillInfo,
  SkillMetadata,
  SkillServiceOptions,
  SkillSource,
  SourceEntry,
  SourceScan,
} from "./types.js";

/** Longest stretch of synchronous reading before the event loop gets a turn, in ms. */
const SLICE_MS = 10;
/** Bytes read to list a skill; the frontmatter nearly always fits, the body is read on use. */
const HEAD_BYTES = 8 * 1024;
/** Entries with their own `read` (memory, MCP, archives) read at once, at most. */
const READ_CONCURRENCY = 16;
/** Names a NOT_FOUND message lists before "and N more". */
const MAX_LISTED_NAMES = 20;
/** Default number of files `files()` returns. */
const DEFAULT_FILE_LIMIT = 10;

/** What one source gave on its last scan. */
interface Group {
  /** `undefined` for skills added one by one with `load()`. */
  readonly source?: SkillSource;
  readonly dirs: readonly string[];
  readonly slots: readonly Slot[];
  readonly diagnostics: readonly Diagnostic[];
  readonly failure?: LoadFailure;
}

interface Registry {
  /** One per source in precedence order, then the `load()` group. */
  readonly groups: readonly Group[];
  readonly resolution: Resolution;
  readonly report: LoadReport;
  /** `dirs()`, sorted on first use: an update should not pay for a sort nobody reads. */
  sortedDirs?: string[];
}

const NO_SLOTS: readonly Slot[] = [];

function aborted(signal?: AbortSignal): SkillError {
  return new SkillError("ABORTED", "Skill loading was aborted", signal ? { cause: signal.reason } : {});
}

function toSkillError(error: unknown, path: string): SkillError {
  if (SkillError.isInstance(error)) return error;
  return new SkillError("READ_ERROR", `Failed to read skill file: ${path} (${describe(error)})`, {
    path,
    cause: error,
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function failureDiagnostic(error: SkillError, path: string): Diagnostic {
  return {
    code: error.code.toLowerCase().replace(/_/g, "-"),
    severity: "error",
    message: error.message,
    path,
  };
}

/** Rejects as soon as `signal` aborts, even when `work` never settles. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(aborted(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(aborted(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
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

function isWithinDir(path: string, dir: string): boolean {
  return path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/**
 * Holds the skills an agent can use: loads them from sources, resolves name collisions by
 * precedence, and answers lookups for an agent. The registry holds metadata only; `read`
 * loads a body when an agent asks for it. Readers never see a half-loaded registry, and an
 * agent never sees a skill its permissions deny: for that agent it does not exist.
 *
 * @example
 * const service = new SkillService({ sources: discoverySources({ cwd: process.cwd() }) });
 * const report = await service.discoverAndLoad();
 * const agent = { name: "build" };
 * service.all(agent).map((s) => s.name);
 * const pdf = await service.read("pdf", agent); // body, read now
 */
export class SkillService {
  readonly #sources: readonly SkillSource[];
  readonly #options: SkillServiceOptions;
  readonly #logger: Logger;
  readonly #maxBytes: number;
  readonly #rules: AnalyzeOptions;
  #registry: Registry;
  #version = 0;
  #generation = 0;
  /** Locations updated while a full load was running: that load may have read them before the change. */
  #updatedDuringLoad: Set<string> | undefined;

  constructor(options: SkillServiceOptions = {}) {
    this.#options = options;
    this.#sources = [...(options.sources ?? [])];
    this.#logger = guardLogger(options.logger);
    this.#maxBytes = checkMaxBytes(options.maxBytes);
    this.#rules = {
      lenient: options.lenient ?? true,
      ...(options.nameFallback === undefined ? {} : { nameFallback: options.nameFallback }),
      ...(options.rejectLongFields === undefined ? {} : { rejectLongFields: options.rejectLongFields }),
    };
    const groups: Group[] = this.#sources.map((source) => ({
      source,
      dirs: [],
      slots: NO_SLOTS,
      diagnostics: [],
    }));
    this.#registry = this.#build([...groups, emptyGroup()]);
  }

  /**
   * Scans every source, loads every entry, and swaps the new registry in whole. A file or
   * source that fails is reported in `failed`, never fatal; only an aborted `ctx.signal`
   * rejects (`ABORTED`), and then the previous registry stays.
   */
  async discoverAndLoad(ctx: ScanContext = {}): Promise<LoadReport> {
    const generation = ++this.#generation;
    const signal = ctx.signal;
    if (signal?.aborted) throw aborted(signal);
    const scanCtx: ScanContext = { ...ctx, logger: ctx.logger ?? this.#logger };
    this.#updatedDuringLoad = new Set();

    const scans = await raceAbort(
      Promise.allSettled(this.#sources.map((source) => scanOf(source, scanCtx))),
      signal,
    );
    if (signal?.aborted) throw aborted(signal);

    const reader = new SliceReader(signal);
    const pending: Promise<void>[] = [];
    const groups: Group[] = [];
    const limit = new Limiter(READ_CONCURRENCY);
    for (let i = 0; i < this.#sources.length; i++) {
      const source = this.#sources[i] as SkillSource;
      const settled = scans[i] as PromiseSettledResult<SourceScan>;
      let scan: SourceScan;
      try {
        if (settled.status === "rejected") throw settled.reason;
        scan = checkScan(settled.value, source.id);
      } catch (reason) {
        const error = SkillError.isInstance(reason)
          ? reason
          : new SkillError("READ_ERROR", `Skill source ${source.id} failed to scan: ${describe(reason)}`, {
              path: source.id,
              cause: reason,
            });
        if (error.code === "ABORTED" && signal?.aborted) throw error;
        groups.push({
          source,
          dirs: [],
          slots: NO_SLOTS,
          diagnostics: [],
          failure: { path: source.id, error },
        });
        continue;
      }
      const slots = new Array<Slot>(scan.entries.length);
      for (let j = 0; j < scan.entries.length; j++) {
        const entry = scan.entries[j] as SourceEntry;
        if (entry.read) {
          pending.push(
            limit.run(async () => {
              slots[j] = await this.#readEntry(entry, source.id, scanCtx);
            }),
          );
        } else {
          slots[j] = this.#readFileSync(entry, source.id);
          await reader.tick();
        }
      }
      groups.push({
        source,
        dirs: [...(scan.dirs ?? [])],
        slots,
        diagnostics: (scan.diagnostics ?? []).map((d) =>
          d.source === undefined ? { ...d, source: source.id } : d,
        ),
      });
    }
    await raceAbort(Promise.all(pending), signal);
    if (signal?.aborted) throw aborted(signal);
    // Skills added with load() stay until the next full load replaces them from the sources.
    groups.push(emptyGroup());

    const registry = this.#build(groups);
    if (generation !== this.#generation) return registry.report; // a newer load owns the registry
    this.#swap(registry);
    const { report } = registry;
    for (const g of groups) for (const d of g.diagnostics) this.#logDiagnostic(d);
    for (const s of report.shadowed) this.#reportShadowed(s);
    for (const f of report.failed) this.#reportFailure(f);
    const late = this.#updatedDuringLoad;
    this.#updatedDuringLoad = undefined;
    // A file a watcher reported during this load may have been read before it changed.
    if (late && late.size > 0) return this.update([...late], ctx);
    return report;
  }

  /**
   * Re-reads only `locations` (added, changed or removed SKILL.md files, as a watcher reports
   * them), re-resolves precedence (a removed winner lets the skill it shadowed back), swaps
   * the registry atomically and publishes `skill.changed` with the names added, changed and
   * removed. A new location belongs to the source whose `dirs` hold it (the deepest such dir;
   * on a tie, the later source); one that no source holds is ignored.
   *
   * @returns the report of the registry after the update
   */
  async update(locations: readonly string[], ctx: ScanContext = {}): Promise<LoadReport> {
    const signal = ctx.signal;
    if (signal?.aborted) throw aborted(signal);
    const scanCtx: ScanContext = { ...ctx, logger: ctx.logger ?? this.#logger };
    const wanted = [...new Set(locations)];
    for (const location of wanted) this.#updatedDuringLoad?.add(location);

    // Read first (possibly asynchronously), then apply to whatever registry is current then.
    const before = this.#registry;
    const read = new Map<string, Slot | undefined>();
    await raceAbort(
      Promise.all(
        wanted.map(async (location) => {
          const known = findSlot(before.groups, location);
          const group = known?.group ?? this.#ownerOf(before.groups, location);
          if (!group) return;
          const entry = known?.slot.entry ?? { location };
          const source = group.source?.id;
          const slot = entry.read
            ? await this.#readEntry(entry, source, scanCtx)
            : this.#readFileSync(entry, source);
          read.set(location, isGone(slot.outcome) ? undefined : slot);
        }),
      ),
      signal,
    );
    if (signal?.aborted) throw aborted(signal);

    const current = this.#registry;
    const groups = current.groups.map((group) => {
      let slots: Slot[] | undefined;
      for (const [location, fresh] of read) {
        const at = group.slots.findIndex((s) => s.location === location);
        if (at === -1) continue;
        slots ??= [...group.slots];
        const old = slots[at] as Slot;
        if (fresh) slots[at] = { ...old, ...identityOf(fresh), outcome: fresh.outcome };
        else slots.splice(at, 1);
      }
      return slots ? { ...group, slots } : group;
    });
    for (const [location, fresh] of read) {
      if (!fresh || findSlot(groups, location)) continue;
      const group = this.#ownerOf(groups, location);
      if (!group) continue;
      const slots = [...group.slots];
      let at = slots.findIndex((s) => compareCodeUnits(s.location, location) > 0);
      if (at === -1) at = slots.length;
      slots.splice(at, 0, fresh);
      groups[groups.indexOf(group)] = { ...group, slots };
    }

    const registry = this.#build(groups);
    this.#swap(registry);
    const changes = diffWinners(current.resolution, registry.resolution);
    const oldPairs = new Set(current.report.shadowed.map(pairKey));
    for (const s of registry.report.shadowed) if (!oldPairs.has(pairKey(s))) this.#reportShadowed(s);
    for (const f of registry.report.failed) if (read.has(f.path)) this.#reportFailure(f);
    if (changes.added.length + changes.changed.length + changes.removed.length > 0) {
      publish(this.#options.bus, "skill.changed", changes);
    }
    return registry.report;
  }

  /**
   * Parses one SKILL.md and adds it to the registry, above every source; a skill of the same
   * name is replaced with a `DUPLICATE_NAME` warning (the same file reached through another
   * path replaces itself silently).
   *
   * @throws SkillError as {@link loadSkillFile} does
   */
  async load(location: string, sourceId?: string): Promise<SkillMetadata> {
    const file = await readSkillFile(location, this.#maxBytes).catch((error: unknown) =>
      toSkillError(error, location),
    );
    const outcome = SkillError.isInstance(file)
      ? failed(file, location)
      : this.#analyze(location, sourceId, file.text, file.invalidUtf8);
    if (!outcome.ok) {
      this.#reportFailure({ path: location, error: outcome.error });
      throw outcome.error;
    }
    const identity = SkillError.isInstance(file) ? undefined : file.id;
    const current = this.#registry;
    const groups = [...current.groups];
    const manual = groups[groups.length - 1] as Group;
    const slot: Slot = {
      location,
      entry: { location },
      ...(sourceId === undefined ? {} : { source: sourceId }),
      ...(identity === undefined ? {} : { identity }),
      outcome,
    };
    groups[groups.length - 1] = {
      ...manual,
      slots: [...manual.slots.filter((s) => s.location !== location), slot],
    };
    const registry = this.#build(groups);
    this.#swap(registry);
    const oldPairs = new Set(current.report.shadowed.map(pairKey));
    for (const s of registry.report.shadowed) if (!oldPairs.has(pairKey(s))) this.#reportShadowed(s);
    return outcome.skill;
  }

  /**
   * Bumped by every registry swap (`discoverAndLoad`, `update`, `load`): a consumer that
   * caches what it derived from the registry (a catalog, a search index) rebuilds when it moved.
   */
  get version(): number {
    return this.#version;
  }

  /** The skill of that name, or `undefined` when there is none or `agent` may not see it. */
  get(name: string, agent?: AgentInfo): SkillMetadata | undefined {
    return this.#visible(name, agent)?.outcome.skill;
  }

  /**
   * The skill of that name.
   *
   * @throws SkillError `NOT_FOUND`, `Skill "x" not found. Available skills: a, b` listing only
   * what `all(agent)` shows (at most 20, then `and N more`; `none` when empty)
   */
  require(name: string, agent?: AgentInfo): SkillMetadata {
    const slot = this.#visible(name, agent);
    if (!slot) throw this.#notFound(name, agent);
    return slot.outcome.skill;
  }

  /**
   * What `agent` may do with the skill: `allow`, or `ask` (confirm with the user before
   * `read`). `undefined` when there is no such skill or the agent is denied it. Without a
   * permission policy every skill is `allow`.
   */
  access(name: string, agent: AgentInfo): PermissionAction | undefined {
    if (!this.#visible(name, agent)) return undefined;
    return this.#options.permission?.evaluate(agent, "skill", name) ?? "allow";
  }

  /**
   * The skill with its body, read now: metadata and body come from the same bytes. A skill
   * whose file is gone, no longer parses or no longer carries this name rejects `NOT_FOUND`
   * ("changed on disk since it was loaded"); the registry is left for the next load to fix.
   *
   * @throws SkillError `NOT_FOUND` for a missing or denied name, exactly as {@link require}
   */
  async read(name: string, agent?: AgentInfo, ctx: ScanContext = {}): Promise<SkillInfo> {
    const slot = this.#visible(name, agent);
    if (!slot) throw this.#notFound(name, agent);
    const scanCtx: ScanContext = { ...ctx, logger: ctx.logger ?? this.#logger };
    const { location, entry } = slot;
    let text: string;
    let invalidUtf8: boolean;
    try {
      if (entry.read) {
        ({ text, invalidUtf8 } = decodeEntry(
          await raceAbort(entry.read(scanCtx), ctx.signal),
          location,
          this.#maxBytes,
        ));
      } else {
        ({ text, invalidUtf8 } = await raceAbort(readSkillFile(location, this.#maxBytes), ctx.signal));
      }
    } catch (error) {
      if (SkillError.isInstance(error) && error.code === "ABORTED") throw error;
      throw changedOnDisk(name, location, toSkillError(error, location).message, error);
    }
    const analysis = analyzeSkill(text, location, { ...this.#rules, invalidUtf8, ...sourceOf(slot.source) });
    const skill = this.#accept(analysis, location);
    if (!skill.ok) throw changedOnDisk(name, location, skill.error.message, skill.error);
    if (analysis.skill?.name !== name) {
      throw changedOnDisk(name, location, `it now names itself ${quote(analysis.skill?.name)}`);
    }
    return analysis.skill;
  }

  /**
   * Files bundled with the skill: relative, `/`-separated, sorted, without `SKILL.md`,
   * dot-folders, dotfiles and `node_modules`, at most `limit` (default 10). From the entry's
   * `listFiles` when the source gave one, else a bounded walk of the SKILL.md folder.
   *
   * @throws SkillError `NOT_FOUND` for a missing or denied name, exactly as {@link require}
   */
  async files(
    name: string,
    agent?: AgentInfo,
    options: { readonly limit?: number; readonly signal?: AbortSignal } = {},
  ): Promise<string[]> {
    const slot = this.#visible(name, agent);
    if (!slot) throw this.#notFound(name, agent);
    const limit = checkLimit(options.limit);
    const ctx: ScanContext = {
      logger: this.#logger,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    };
    if (slot.entry.listFiles) {
      return normalizeFileList(await raceAbort(slot.entry.listFiles(ctx), options.signal), limit);
    }
    if (!isAbsolute(slot.location)) return [];
    return listSkillFiles(slot.location, { limit, ...(options.signal ? { signal: options.signal } : {}) });
  }

  /**
   * Every skill, sorted by name (code-unit order). With an agent and a permission policy,
   * skills whose `skill` rule is `deny` are left out; `ask` skills stay.
   */
  all(agent?: AgentInfo): SkillMetadata[] {
    const policy = this.#options.permission;
    const out: SkillMetadata[] = [];
    for (const [name, slot] of this.#registry.resolution.winners) {
      if (agent && policy && policy.evaluate(agent, "skill", name) === "deny") continue;
      out.push(slot.outcome.skill);
    }
    return out.sort((a, b) => compareCodeUnits(a.name, b.name));
  }

  /** Every directory that held a loaded SKILL.md, shadowed ones too; sorted. */
  dirs(): string[] {
    const registry = this.#registry;
    registry.sortedDirs ??= [...registry.resolution.dirs].sort(compareCodeUnits);
    return [...registry.sortedDirs];
  }

  /** Findings of the registry: source findings, spec warnings, repairs, failures and duplicate names. */
  diagnostics(): readonly Diagnostic[] {
    return this.#registry.report.diagnostics;
  }

  #visible(name: string, agent: AgentInfo | undefined) {
    const slot = this.#registry.resolution.winners.get(name);
    if (!slot) return undefined;
    const policy = this.#options.permission;
    if (agent && policy && policy.evaluate(agent, "skill", name) === "deny") return undefined;
    return slot;
  }

  #notFound(name: string, agent: AgentInfo | undefined): SkillError {
    const names = this.all(agent).map((s) => printable(s.name));
    const shown = names.slice(0, MAX_LISTED_NAMES).join(", ");
    const more = names.length > MAX_LISTED_NAMES ? ` and ${names.length - MAX_LISTED_NAMES} more` : "";
    return new SkillError(
      "NOT_FOUND",
      `Skill ${quote(name)} not found. Available skills: ${names.length > 0 ? shown + more : "none"}`,
    );
  }

  /** The group a new location belongs to: the deepest dir holding it; on a tie, the later source. */
  #ownerOf(groups: readonly Group[], location: string): Group | undefined {
    if (!isAbsolute(location)) return undefined;
    let best: Group | undefined;
    let depth = -1;
    for (const group of groups) {
      if (!group.source) continue;
      for (const dir of group.dirs) {
        if (!isWithinDir(location, dir)) continue;
        if (dir.length >= depth) {
          depth = dir.length;
          best = group;
        }
      }
    }
    return best;
  }

  #readFileSync(entry: SourceEntry, source: string | undefined, head = true): Slot {
    const location = entry.location;
    try {
      const file = readSkillFileSync(location, this.#maxBytes, head ? HEAD_BYTES : Number.POSITIVE_INFINITY);
      return newSlot(entry, source, this.#analyze(location, source, file.text, file.invalidUtf8), file.id);
    } catch (error) {
      const e = toSkillError(error, location);
      return newSlot(entry, source, failed(e, location));
    }
  }

  async #readEntry(entry: SourceEntry, source: string | undefined, ctx: ScanContext): Promise<Slot> {
    const location = entry.location;
    const identity = `uri:${location}`;
    try {
      const value = await (entry.read as NonNullable<SourceEntry["read"]>)(ctx);
      const { text, invalidUtf8 } = decodeEntry(value, location, this.#maxBytes);
      return newSlot(entry, source, this.#analyze(location, source, text, invalidUtf8), identity);
    } catch (error) {
      if (SkillError.isInstance(error) && error.code === "ABORTED" && ctx.signal?.aborted) throw error;
      return newSlot(entry, source, failed(toSkillError(error, location), location), identity);
    }
  }

  #analyze(location: string, source: string | undefined, text: string, invalidUtf8: boolean): Outcome {
    const analysis = analyzeSkill(text, location, { ...this.#rules, invalidUtf8, ...sourceOf(source) });
    const accepted = this.#accept(analysis, location);
    if (!accepted.ok) return accepted;
    const { content: _body, ...meta } = analysis.skill as SkillInfo;
    return { ok: true, skill: Object.freeze(meta), diagnostics: analysis.diagnostics };
  }

  /** Applies strict mode to an analysis: any spec finding fails the skill. */
  #accept(analysis: ReturnType<typeof analyzeSkill>, location: string): Outcome {
    if (analysis.error || !analysis.skill) {
      const error = analysis.error ?? toSkillError(undefined, location);
      const diagnostics = analysis.diagnostics.some((d) => d.severity === "error")
        ? analysis.diagnostics
        : [...analysis.diagnostics, failureDiagnostic(error, location)];
      return { ok: false, error, diagnostics };
    }
    const rejection = this.#rules.lenient ? undefined : strictRejection(analysis, location);
    if (rejection) return { ok: false, error: rejection, diagnostics: analysis.diagnostics };
    return { ok: true, skill: analysis.skill, diagnostics: analysis.diagnostics };
  }

  #build(groups: readonly Group[]): Registry {
    const resolution = resolvePrecedence(groups.flatMap((g) => g.slots));
    const sourceFailures = groups.flatMap((g) => (g.failure ? [g.failure] : []));
    const report: LoadReport = {
      loaded: resolution.winners.size,
      failed: [...sourceFailures, ...resolution.failed],
      shadowed: resolution.shadowed,
      diagnostics: [
        ...groups.flatMap((g) => g.diagnostics),
        ...sourceFailures.map((f) => ({ ...failureDiagnostic(f.error, f.path), source: f.path })),
        ...resolution.diagnostics,
      ],
    };
    return { groups, resolution, report };
  }

  #swap(registry: Registry): void {
    this.#registry = registry;
    this.#version++;
  }

  #logDiagnostic(d: Diagnostic): void {
    this.#logger.warn(d.message, {
      code: d.code,
      ...(d.path === undefined ? {} : { path: d.path }),
      ...(d.source === undefined ? {} : { source: d.source }),
    });
  }

  #reportShadowed(s: ShadowedSkill): void {
    this.#logger.warn(`Duplicate skill name: ${printable(s.name)} (${s.kept} replaces ${s.dropped})`, {
      code: "DUPLICATE_NAME",
      name: s.name,
      path: s.dropped,
    });
    const payload: SkillEvents["skill.shadowed"] = { name: s.name, kept: s.kept, dropped: s.dropped };
    publish(this.#options.bus, "skill.shadowed", payload);
  }

  #reportFailure(f: LoadFailure): void {
    this.#logger.warn(f.error.message, { code: f.error.code, path: f.path });
    const payload: SkillEvents["session.error"] = {
      type: "skill_parse_error",
      path: f.path,
      error: f.error.message,
    };
    publish(this.#options.bus, "session.error", payload);
  }
}

function emptyGroup(): Group {
  return { dirs: [], slots: NO_SLOTS, diagnostics: [] };
}

function sourceOf(source: string | undefined): { source?: string } {
  return source === undefined ? {} : { source };
}

function failed(error: SkillError, location: string): Outcome {
  return { ok: false, error, diagnostics: [failureDiagnostic(error, location)] };
}

function newSlot(entry: SourceEntry, source: string | undefined, outcome: Outcome, identity?: string): Slot {
  return {
    location: entry.location,
    entry,
    ...(source === undefined ? {} : { source }),
    ...(identity === undefined ? {} : { identity }),
    outcome,
  };
}

function identityOf(slot: Slot): { identity?: string } {
  return slot.identity === undefined ? {} : { identity: slot.identity };
}

/** A re-read that found nothing there: the location was removed. */
function isGone(outcome: Outcome): boolean {
  return !outcome.ok && outcome.error.code === "NOT_FOUND";
}

function findSlot(groups: readonly Group[], location: string): { group: Group; slot: Slot } | undefined {
  for (let i = groups.length - 1; i >= 0; i--) {
    const group = groups[i] as Group;
    const slot = group.slots.find((s) => s.location === location);
    if (slot) return { group, slot };
  }
  return undefined;
}

function pairKey(s: ShadowedSkill): string {
  return `${s.name}\0${s.kept}\0${s.dropped}`;
}

function diffWinners(before: Resolution, after: Resolution): SkillEvents["skill.changed"] {
  const added: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  for (const [name, slot] of after.winners) {
    const old = before.winners.get(name);
    if (!old) added.push(name);
    else if (old.outcome.skill !== slot.outcome.skill) changed.push(name);
  }
  for (const name of before.winners.keys()) if (!after.winners.has(name)) removed.push(name);
  return {
    added: added.sort(compareCodeUnits),
    changed: changed.sort(compareCodeUnits),
    removed: removed.sort(compareCodeUnits),
  };
}

function changedOnDisk(name: string, location: string, reason: string, cause?: unknown): SkillError {
  return new SkillError(
    "NOT_FOUND",
    `Skill ${quote(name)} changed on disk since it was loaded: ${reason} (${location}); load the skills again`,
    { path: location, ...(cause === undefined ? {} : { cause }) },
  );
}

function checkLimit(limit: unknown): number {
  if (limit === undefined) return DEFAULT_FILE_LIMIT;
  if (typeof limit !== "number" || Number.isNaN(limit) || limit < 0) {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid file limit: expected a number >= 0, found ${String(limit)}`,
      {
        field: "limit",
      },
    );
  }
  return Math.floor(limit);
}

/** Runs synchronous reads in slices so timers and I/O keep running during a big load. */
class SliceReader {
  #start = performance.now();
  readonly #signal: AbortSignal | undefined;
  constructor(signal: AbortSignal | undefined) {
    this.#signal = signal;
  }
  async tick(): Promise<void> {
    if (performance.now() - this.#start <= SLICE_MS) return;
    await yieldToEventLoop();
    if (this.#signal?.aborted) throw aborted(this.#signal);
    this.#start = performance.now();
  }
}

/** At most `max` tasks at once. */
class Limiter {
  #active = 0;
  readonly #queue: (() => void)[] = [];
  readonly #max: number;
  constructor(max: number) {
    this.#max = max;
  }
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active >= this.#max) await new Promise<void>((resolve) => this.#queue.push(resolve));
    this.#active++;
    try {
      return await task();
    } finally {
      this.#active--;
      this.#queue.shift()?.();
    }
  }
}
