import { checkMaxBytes } from "../files/read-file.js";
import { DEFAULT_MAX_FILE_BYTES } from "../files/read-inside.js";
import type { AnalyzeOptions } from "../parse/analysis.js";
import { resolveRules } from "../parse/load-rules.js";
import { printable, quote, SkillError } from "../spec/errors.js";
import type { Logger, SkillEvents } from "../spec/logging.js";
import type { LoadFailure, LoadReport } from "../spec/report.js";
import type { AgentInfo, PermissionAction, SkillServiceOptions } from "../spec/service-options.js";
import type { ScanContext, SkillSource } from "../spec/skill-source.js";
import type { Diagnostic, ShadowedSkill, SkillInfo, SkillMetadata } from "../spec/types.js";
import { abortError, raceAbort } from "../util/abort.js";
import { guardLogger, publish } from "../util/logger.js";
import { compareCodeUnits } from "../util/text.js";
import { EntryLoader } from "./entry-loader.js";
import {
  buildRegistry,
  diffWinners,
  emptyGroup,
  type Group,
  Lookups,
  pairKey,
  patchRegistry,
  type Registry,
  rebuildRegistry,
} from "./registry.js";
import { loadScans, rereadLocations, scanSources } from "./scan-groups.js";
import { readMemoOf } from "./shared-reads.js";
import { listBundled, readBundled, readSkill } from "./skill-reader.js";

/** Default number of files `files()` returns. */
const DEFAULT_FILE_LIMIT = 10;

/**
 * Holds the skills an agent can use: loads them from sources, resolves name collisions by
 * precedence, and answers lookups for an agent. The registry holds metadata only; `read`
 * loads a body when an agent asks for it and `readFile` a bundled file. Readers never see a
 * half-loaded registry, and an agent never sees a skill its permissions deny: for that agent
 * it does not exist.
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
  readonly #loader: EntryLoader;
  readonly #maxFileBytes: number;
  #registry: Registry;
  #lookups: Lookups;
  #version = 0;
  #generation = 0;
  /** Locations updated while a full load was running: that load may have read them before the change. */
  #updatedDuringLoad: Set<string> | undefined;

  constructor(options: SkillServiceOptions = {}) {
    this.#options = options;
    this.#sources = [...(options.sources ?? [])];
    this.#logger = guardLogger(options.logger);
    const rules: AnalyzeOptions = resolveRules(options);
    this.#loader = new EntryLoader(
      rules,
      checkMaxBytes(options.maxBytes),
      options.headCache,
      readMemoOf(options.sharedReads),
    );
    this.#maxFileBytes = checkMaxBytes(options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES);
    this.#registry = buildRegistry([...this.#sources.map((s) => emptyGroup(s)), emptyGroup()]);
    this.#lookups = new Lookups(this.#registry, options.permission, this.#unfiltered);
  }

  /**
   * Scans every source, loads every entry, and swaps the new registry in whole. A file or
   * source that fails is reported in `failed`, never fatal; only an aborted `ctx.signal`
   * rejects (`ABORTED`), and then the previous registry stays. Entries that carry a head are
   * registered without a read; with a head cache, unchanged files are not opened.
   */
  async discoverAndLoad(ctx: ScanContext = {}): Promise<LoadReport> {
    const generation = ++this.#generation;
    const signal = ctx.signal;
    if (signal?.aborted) throw abortError(signal);
    const scanCtx = this.#context(ctx);
    this.#updatedDuringLoad = new Set();
    try {
      const scans = await raceAbort(scanSources(this.#sources, scanCtx), signal);
      if (signal?.aborted) throw abortError(signal);
      const groups = await loadScans(this.#sources, scans, this.#loader, scanCtx);
      // Skills added with load() stay until the next full load replaces them from the sources.
      groups.push(emptyGroup());
      const registry = buildRegistry(groups);
      if (generation !== this.#generation) return registry.report; // a newer load owns the registry
      this.#swap(registry);
      const { report } = registry;
      for (const g of groups) for (const d of g.diagnostics) this.#logDiagnostic(d);
      for (const s of report.shadowed) this.#reportShadowed(s);
      for (const f of report.failed) this.#reportFailure(f);
      await this.#loader.flush();
      const late = this.#updatedDuringLoad;
      this.#updatedDuringLoad = undefined;
      // A file a watcher reported during this load may have been read before it changed.
      if (late && late.size > 0) return this.update([...late], ctx);
      return report;
    } finally {
      if (generation === this.#generation) this.#updatedDuringLoad = undefined;
    }
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
    if (signal?.aborted) throw abortError(signal);
    const scanCtx = this.#context(ctx);
    const wanted = [...new Set(locations)];
    for (const location of wanted) this.#updatedDuringLoad?.add(location);

    // Read first (possibly asynchronously), then apply to whatever registry is current then.
    const read = await rereadLocations(this.#registry, wanted, this.#loader, scanCtx);
    if (signal?.aborted) throw abortError(signal);

    const current = this.#registry;
    // An edit that keeps the file's name (the common case) replaces its winner alone.
    const patched = patchRegistry(current, read);
    const registry = patched?.registry ?? rebuildRegistry(current, read);
    this.#swap(registry);
    const changes = patched
      ? { added: [], changed: patched.changed, removed: [] }
      : diffWinners(current.resolution, registry.resolution);
    const oldPairs = new Set(current.report.shadowed.map(pairKey));
    for (const s of registry.report.shadowed) if (!oldPairs.has(pairKey(s))) this.#reportShadowed(s);
    for (const f of registry.report.failed) if (read.has(f.path)) this.#reportFailure(f);
    await this.#loader.flush();
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
    const slot = this.#loader.fileSlot({ location }, sourceId === undefined ? {} : { id: sourceId });
    if (!slot.outcome.ok) {
      this.#reportFailure({ path: location, error: slot.outcome.error });
      throw slot.outcome.error;
    }
    const current = this.#registry;
    const groups = [...current.groups];
    const manual = groups[groups.length - 1] as Group;
    groups[groups.length - 1] = {
      ...manual,
      slots: [...manual.slots.filter((s) => s.location !== location), slot],
    };
    const registry = buildRegistry(groups);
    this.#swap(registry);
    const oldPairs = new Set(current.report.shadowed.map(pairKey));
    for (const s of registry.report.shadowed) if (!oldPairs.has(pairKey(s))) this.#reportShadowed(s);
    await this.#loader.flush();
    const won = [...registry.resolution.winners.values()].find((w) => w.location === location);
    return won?.skill ?? slot.outcome.skill;
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
    return this.#lookups.visible(name, agent)?.skill;
  }

  /**
   * The skill of that name.
   *
   * @throws SkillError `NOT_FOUND`, `Skill "x" not found. Available skills: a, b` listing only
   * what `all(agent)` shows (at most 20, then `and N more`; `none` when empty)
   */
  require(name: string, agent?: AgentInfo): SkillMetadata {
    return this.#lookups.require(name, agent).skill;
  }

  /**
   * What `agent` may do with the skill: `allow`, or `ask` (confirm with the user before
   * `read`). `undefined` when there is no such skill or the agent is denied it. Without a
   * permission policy every skill is `allow`. The skill's key and its frontmatter name are
   * both checked; the stricter answer holds.
   */
  access(name: string, agent: AgentInfo): PermissionAction | undefined {
    return this.#lookups.access(name, agent);
  }

  /**
   * The skill with its body, read now: metadata and body come from the same bytes. A skill
   * whose file is gone, no longer parses or no longer carries this name rejects `NOT_FOUND`
   * ("changed on disk since it was loaded"); the registry is left for the next load to fix.
   * A skill registered from a head its source gave (an MCP listing) is verified against it:
   * size, digest and every frontmatter field, `INTEGRITY_ERROR` on a mismatch. A SKILL.md
   * over `maxBytes` rejects `LIMIT_EXCEEDED` naming its size and the limit, whoever gave its
   * head (a source, or the head cache for a file that grew since): the skill is there, too
   * large to read, and stays in the registry.
   *
   * @throws SkillError `NOT_FOUND` for a missing or denied name, exactly as {@link require}
   */
  async read(name: string, agent?: AgentInfo, ctx: ScanContext = {}): Promise<SkillInfo> {
    const winner = this.#lookups.require(name, agent);
    return readSkill(winner, this.#loader, this.#context(ctx));
  }

  /**
   * Files bundled with the skill: relative, `/`-separated, sorted, without `SKILL.md`,
   * dot-folders, dotfiles, `node_modules`, nested skills and links that leave the folder, at
   * most `limit` (default 10). From the entry's `listFiles` when the source gave one, else
   * core's walk of the SKILL.md folder (`skillFiles`).
   *
   * @throws SkillError `NOT_FOUND` for a missing or denied name, exactly as {@link require}
   */
  async files(
    name: string,
    agent?: AgentInfo,
    options: { readonly limit?: number; readonly signal?: AbortSignal } = {},
  ): Promise<string[]> {
    const winner = this.#lookups.require(name, agent);
    const limit = checkLimit(options.limit);
    return listBundled(
      winner,
      limit,
      this.#context(options.signal === undefined ? {} : { signal: options.signal }),
    );
  }

  /**
   * One bundled file of the skill, by the one path rule: permissions as for {@link read}
   * (denied is missing), `UNSAFE_PATH` for `..`, absolute or escaping paths (also a link whose
   * target leaves the skill folder), `NOT_FOUND` for a path that `files()` would not list,
   * `LIMIT_EXCEEDED` over `maxFileBytes` (default 10 MiB). `SKILL.md` gives the raw bytes that
   * `read` parses, verified the same way.
   */
  async readFile(name: string, path: string, agent?: AgentInfo, ctx: ScanContext = {}): Promise<Uint8Array> {
    const winner = this.#lookups.require(name, agent);
    return readBundled(winner, path, this.#maxFileBytes, this.#loader, this.#context(ctx));
  }

  /**
   * Every skill, sorted by name (code-unit order). With an agent and a permission policy,
   * skills whose `skill` rule is `deny` are left out; `ask` skills stay.
   */
  all(agent?: AgentInfo): SkillMetadata[] {
    return this.#lookups.all(agent);
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

  #context(ctx: ScanContext): ScanContext {
    return { ...ctx, logger: ctx.logger ?? this.#logger };
  }

  #swap(registry: Registry): void {
    this.#registry = registry;
    this.#lookups = new Lookups(registry, this.#options.permission, this.#unfiltered);
    this.#version++;
  }

  /** Agents already told of (by name): one warning each. */
  readonly #toldUnfiltered = new Set<string>();

  /**
   * An agent that carries permission rules, asked about by a service with no `permission`
   * policy: nothing applies them, so a `deny` there hides nothing. Said once per agent.
   */
  readonly #unfiltered = (agent: AgentInfo): void => {
    if (this.#toldUnfiltered.has(agent.name)) return;
    this.#toldUnfiltered.add(agent.name);
    this.#logger.warn(
      `Agent ${quote(agent.name)} has permission rules, but this SkillService has no permission policy: they are not applied (pass permission: createPermissionPolicy() from @skill/permissions)`,
      { code: "permission-unenforced" },
    );
  };

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
