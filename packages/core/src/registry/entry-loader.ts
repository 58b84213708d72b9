import { statSync } from "node:fs";
import { readCodexSidecar, sameSidecarKey, sidecarKey, statCodexSidecar } from "../files/codex-sidecar.js";
import { fileKey, RACY_MS } from "../files/file-key.js";
import { decodeEntry, type FileStat, readSkillFileSync, type SkillFileText } from "../files/read-file.js";
import { type Analysis, type AnalyzeOptions, strictRejection } from "../parse/analysis.js";
import { analyzeSkill, splitText } from "../parse/analyze.js";
import { analyzeFields } from "../parse/analyze-fields.js";
import { rulesFingerprint } from "../parse/load-rules.js";
import { MAX_SUMMARY_LENGTH, summaryEnd } from "../parse/summary.js";
import { describeKind, SkillError } from "../spec/errors.js";
import type { FileKey, HeadCache, ScanContext, SkillHead, SourceEntry } from "../spec/skill-source.js";
import type { SkillInfo } from "../spec/types.js";
import { isAbortOf } from "../util/abort.js";
import { isMapping } from "../util/mapping.js";
import { type CachedHead, located, pathFree } from "./cached-head.js";
import { failed, failureDiagnostic, ignoring, toSkillError } from "./outcome.js";
import type { HeadOrigin, Outcome, Slot } from "./precedence.js";
import type { ReadMemo } from "./shared-reads.js";

/** Bytes read to list a skill; the frontmatter nearly always fits, the body is read on use. */
const HEAD_BYTES = 4 * 1024;
/**
 * Bumped when what a cached head means changes, so older caches are misses. 2: a head without
 * `diagnostics` had none (every head of this format keeps its parse's findings). 3: a finding's
 * text that names the file is kept as the parts around its path ({@link pathFree}). 4: a head
 * loaded under `codexPolicy` keeps the state of the skill's `agents/openai.yaml` and what it said
 * ({@link CachedHead.codex}). 5: a head keeps the body's `summary` (an older head is read once more).
 */
const CACHE_FORMAT = 5;

/** Who an entry came from: what a slot records besides the entry. */
export interface EntryOwner {
  /** The source id; `undefined` for a skill added with `load()`. */
  readonly id?: string;
  readonly firstWins?: boolean;
}

/**
 * Turns source entries into slots: reads and parses SKILL.md files (or takes their heads),
 * under one set of load rules, through the head cache when there is one. What the service
 * loads with, and what `read` re-parses with, so both apply the same rules.
 */
export class EntryLoader {
  readonly rules: AnalyzeOptions;
  readonly maxBytes: number;
  readonly #cache: HeadCache | undefined;
  readonly #reads: ReadMemo | undefined;
  readonly #fingerprint: string;
  /** The rules, limits and validation target an analysis is judged by (a memo key part). */
  readonly #judging: string;
  readonly #optionsBy = new Map<string | undefined, Map<string, AnalyzeOptions>>();
  readonly #readOptionsBy = new Map<string | undefined, Map<string, AnalyzeOptions>>();
  /** By source and origin: who reads, as the shared reads' analyses are keyed (one string each). */
  readonly #readers = new Map<string | undefined, Map<string, string>>();

  constructor(rules: AnalyzeOptions, maxBytes: number, cache: HeadCache | undefined, reads?: ReadMemo) {
    this.rules = rules;
    this.maxBytes = maxBytes;
    this.#cache = cache;
    this.#reads = reads;
    this.#fingerprint = JSON.stringify([CACHE_FORMAT, ...rulesFingerprint(rules), maxBytes]);
    this.#judging = JSON.stringify([this.#fingerprint, rules.target ?? null]);
  }

  /** A file entry (or one with a head), read synchronously: bulk loads are faster this way. */
  fileSlot(entry: SourceEntry, owner: EntryOwner): Slot {
    if (entry.head) return this.headSlot(entry, owner, entry.head);
    const location = entry.location;
    const origin = originOf(entry, owner);
    // Codex's sidecar: one stat per skill, only under the rule, and part of the cached head's key.
    const sidecar = this.rules.codexPolicy ? this.#sidecarStat(location) : undefined;
    const cached = this.#fromCache(entry, owner, origin, sidecar);
    if (cached) return cached;
    try {
      const file = this.#read(location);
      const analysis = this.analyze(location, owner.id, origin, file.text, file.invalidUtf8, true);
      const userOnly = sidecar ? this.#sidecarUserOnly(location) : false;
      const outcome = userOnlyOutcome(this.accept(analysis, location), userOnly);
      if (outcome.ok && this.#cache && !racy(sidecar)) {
        const head: CachedHead = {
          frontmatter: outcome.skill.frontmatter,
          size: file.stat.size,
          ...(outcome.diagnostics.length > 0
            ? { diagnostics: outcome.diagnostics.map((d) => pathFree(d, location)) }
            : {}),
          rules: this.#fingerprint,
          ...(outcome.skill.summary === undefined ? {} : { summary: outcome.skill.summary }),
          ...(sidecar === undefined
            ? {}
            : { codex: { sidecar: sidecarKey(sidecar), ...(userOnly ? { userOnly: true as const } : {}) } }),
        };
        this.#cache.set({ path: location, ...file.stat }, head);
      }
      return newSlot(entry, owner, origin, outcome, file.id);
    } catch (error) {
      return newSlot(entry, owner, origin, failed(toSkillError(error, location), location));
    }
  }

  /**
   * SKILL.md's first {@link HEAD_BYTES}, or the whole file when they do not hold the whole
   * frontmatter, or when the body's summary goes on past them (as Codex reads 2 KiB of each).
   */
  #read(location: string): SkillFileText & { readonly complete: boolean } {
    // Loads that share reads share this too: one text per file, however many agents read it.
    return this.#reads
      ? this.#reads.loadRead(location, this.maxBytes, () => this.#readNow(location))
      : this.#readNow(location);
  }

  #readNow(location: string): SkillFileText & { readonly complete: boolean } {
    const read = (head: number) =>
      this.#reads
        ? this.#reads.read(location, this.maxBytes, head)
        : readSkillFileSync(location, this.maxBytes, head);
    const file = read(HEAD_BYTES);
    if (file.complete) return file;
    const { normalized, bounds } = splitText(file.text);
    const end = bounds === undefined ? -1 : summaryEnd(bounds.body);
    if (bounds === undefined || end === -1) return read(Number.POSITIVE_INFINITY);
    // Only what the analysis reads, as a string of its own: the frontmatter's values are
    // slices of the text, and would keep the whole prefix alive while the registry holds them.
    const used = normalized.length - bounds.body.length + end;
    return { ...file, text: ` ${normalized.slice(0, used)}`.slice(1) };
  }

  /** An entry with its own `read`. Rejects only with the `ABORTED` of `ctx.signal`. */
  async entrySlot(entry: SourceEntry, owner: EntryOwner, ctx: ScanContext): Promise<Slot> {
    if (entry.head) return this.headSlot(entry, owner, entry.head);
    const location = entry.location;
    const origin = originOf(entry, owner);
    const identity = `uri:${location}`;
    try {
      const value = await (entry.read as NonNullable<SourceEntry["read"]>)(ctx);
      const { text, invalidUtf8 } = decodeEntry(value, location, this.maxBytes);
      const outcome = this.accept(
        this.analyze(location, owner.id, origin, text, invalidUtf8, true),
        location,
      );
      return newSlot(entry, owner, origin, ignoring(outcome, entry), identity);
    } catch (error) {
      if (isAbortOf(error, ctx.signal)) throw error;
      return newSlot(entry, owner, origin, failed(toSkillError(error, location), location), identity);
    }
  }

  /** An entry registered from the head its source gave, without reading anything. */
  headSlot(entry: SourceEntry, owner: EntryOwner, head: SkillHead): Slot {
    const location = entry.location;
    const origin = originOf(entry, owner);
    const identity = `uri:${location}`;
    if (!isMapping(head.frontmatter)) {
      const error = new SkillError(
        "INVALID_FIELD",
        `Invalid head of ${location}: expected its frontmatter as a mapping of fields, found ${describeKind(head.frontmatter)}`,
        { path: location },
      );
      return newSlot(entry, owner, origin, failed(error, location), identity);
    }
    const outcome = ignoring(
      this.accept(this.#fromFields(head, location, owner.id, origin), location),
      entry,
    );
    return newSlot(entry, owner, origin, outcome, identity, { head, from: "source" });
  }

  /**
   * Parses SKILL.md text under the load rules, for this owner. `metadataOnly`: for a slot (the
   * skill is made without its body); a read leaves it off.
   */
  analyze(
    location: string,
    source: string | undefined,
    origin: string,
    text: string,
    invalidUtf8: boolean,
    metadataOnly = false,
  ) {
    const options = this.#options(source, origin, metadataOnly);
    const run = () => analyzeSkill(text, location, invalidUtf8 ? { ...options, invalidUtf8 } : options);
    if (this.#reads === undefined || !metadataOnly) return run();
    // Shared reads (`compareAgents`): another load with these rules over this source made it.
    return this.#reads.analysis(this.#reader(source, origin, invalidUtf8), location, text, run);
  }

  /** The key of the shared analyses this loader makes for a source and origin. */
  #reader(source: string | undefined, origin: string, invalidUtf8: boolean): string {
    let byOrigin = this.#readers.get(source);
    if (byOrigin === undefined) {
      byOrigin = new Map();
      this.#readers.set(source, byOrigin);
    }
    let who = byOrigin.get(origin);
    if (who === undefined) {
      who = `${this.#judging}\0${source ?? ""}\0${origin}`;
      byOrigin.set(origin, who);
    }
    // Rare (a file that is not UTF-8): a key of its own.
    return invalidUtf8 ? `${who}\0invalid-utf8` : who;
  }

  /** Applies strict mode to an analysis: any spec finding fails the skill. */
  accept(analysis: Analysis, location: string): Outcome {
    if (analysis.error || !analysis.skill) {
      const error = analysis.error ?? toSkillError(undefined, location);
      const diagnostics = analysis.diagnostics.some((d) => d.severity === "error")
        ? analysis.diagnostics
        : [...analysis.diagnostics, failureDiagnostic(error, location)];
      return { ok: false, error, diagnostics };
    }
    const rejection = this.rules.lenient ? undefined : strictRejection(analysis, location);
    if (rejection) return { ok: false, error: rejection, diagnostics: analysis.diagnostics };
    const skill = analysis.skill as SkillInfo;
    if (!Object.hasOwn(skill, "content")) return { ok: true, skill, diagnostics: analysis.diagnostics };
    const { content: _body, ...meta } = skill;
    return { ok: true, skill: Object.freeze(meta), diagnostics: analysis.diagnostics };
  }

  /** Forgets (and writes away) the cached head of a file that no longer matches it. */
  async dropCached(head: HeadOrigin | undefined): Promise<void> {
    if (head?.from !== "cache" || !head.key || !this.#cache?.delete) return;
    this.#cache.delete(head.key.path);
    await this.flush();
  }

  /** Writes the head cache, if any; never rejects (a cache must not fail a load). */
  async flush(): Promise<void> {
    await this.#cache?.flush().catch(() => {});
  }

  /**
   * The skill a head's frontmatter gives, by the same rules as a parse (no text: no lines).
   * `checked`: the head keeps the findings of its parse, so they are not looked for again.
   */
  #fromFields(
    head: SkillHead,
    location: string,
    source: string | undefined,
    origin: string,
    checked = false,
  ): Analysis {
    const summary =
      typeof head.summary === "string" ? { summary: head.summary.slice(0, MAX_SUMMARY_LENGTH) } : {};
    return analyzeFields(
      head.frontmatter,
      head.frontmatter,
      location,
      this.#options(source, origin),
      checked ? { diagnostics: [], check: false, ...summary } : { diagnostics: [], ...summary },
    );
  }

  #options(source: string | undefined, origin: string, metadataOnly = true): AnalyzeOptions {
    // One options object per owner and origin: a load asks for the same few thousands of times.
    const by = metadataOnly ? this.#optionsBy : this.#readOptionsBy;
    let byOrigin = by.get(source);
    if (!byOrigin) {
      byOrigin = new Map();
      by.set(source, byOrigin);
    }
    let options = byOrigin.get(origin);
    if (!options) {
      const reads = this.#reads;
      options = {
        ...this.rules,
        ...(source === undefined ? {} : { source }),
        origin,
        ...(reads ? { memo: reads } : {}),
        ...(metadataOnly ? { metadataOnly } : {}),
      };
      byOrigin.set(origin, options);
    }
    return options;
  }

  /** The state of the Codex sidecar of the SKILL.md at `location` (one stat, shared between loads that share reads). */
  #sidecarStat(location: string): FileStat | null {
    return this.#reads ? this.#reads.sidecar(location).stat : statCodexSidecar(location);
  }

  /** Whether the Codex sidecar of the SKILL.md at `location` makes it user-only (read once it exists). */
  #sidecarUserOnly(location: string): boolean {
    return this.#reads ? this.#reads.sidecarUserOnly(location) : readCodexSidecar(location);
  }

  /**
   * The slot from a cached head when the file is unchanged (and, under `codexPolicy`, its Codex
   * sidecar in the state `sidecar` the head was stored with); `undefined` to read it.
   */
  #fromCache(
    entry: SourceEntry,
    owner: EntryOwner,
    origin: string,
    sidecar: FileStat | null | undefined,
  ): Slot | undefined {
    const cache = this.#cache;
    if (!cache) return undefined;
    const location = entry.location;
    let key: FileKey;
    if (this.#reads) {
      // The state the shared read saw: one open for every load, none a stat of its own.
      try {
        key = fileKey(location, this.#reads.read(location, this.maxBytes, HEAD_BYTES).stat);
      } catch {
        return undefined; // the read reports why
      }
    } else {
      try {
        // A path the cache has never held (a first run, a new skill) is read at once: its stat
        // could find nothing, and the read's own gives the key the head is stored under.
        if (cache.has?.(location) === false) return undefined;
        const stats = statSync(location);
        if (!stats.isFile() || stats.size > this.maxBytes) return undefined;
        key = fileKey(location, stats);
      } catch {
        return undefined; // the read reports why
      }
    }
    let head: CachedHead | undefined;
    try {
      head = cache.get(key) as CachedHead | undefined;
    } catch {
      return undefined; // a broken cache costs a read
    }
    if (!head || head.rules !== this.#fingerprint || !isMapping(head.frontmatter)) return undefined;
    const codex = head.codex;
    if (sidecar !== undefined && !(isMapping(codex) && sameSidecarKey(codex.sidecar, sidecar)))
      return undefined;
    const found = head.diagnostics;
    if (found !== undefined && !Array.isArray(found)) return undefined;
    // The head keeps the findings of its parse (none when it has no `diagnostics`): they are not
    // looked for again (a failure's own findings are moot: the file is read).
    const analysis = this.#fromFields(head, location, owner.id, origin, true);
    if (found !== undefined && analysis.skill) {
      for (const stored of found) {
        const d = located(stored, location);
        if (d === undefined) return undefined;
        analysis.diagnostics.push(d);
      }
    }
    const outcome = userOnlyOutcome(this.accept(analysis, location), codex?.userOnly === true);
    if (!outcome.ok || analysis.needsBody) return undefined;
    return newSlot(entry, owner, origin, outcome, `${key.dev}:${key.ino}`, { head, from: "cache", key });
  }
}

/** The outcome with `modelInvocable: false` when the Codex sidecar says so. */
function userOnlyOutcome(outcome: Outcome, userOnly: boolean): Outcome {
  if (!userOnly || !outcome.ok || !outcome.skill.modelInvocable) return outcome;
  return { ...outcome, skill: Object.freeze({ ...outcome.skill, modelInvocable: false }) };
}

/**
 * A sidecar modified within the timestamp granularity of now may change again without its
 * state showing it (git's racily-clean rule, as the head cache applies to SKILL.md): a head
 * that depends on it is not stored.
 */
function racy(sidecar: FileStat | null | undefined): boolean {
  return sidecar !== undefined && sidecar !== null && sidecar.mtimeMs >= Date.now() - RACY_MS;
}

function originOf(entry: SourceEntry, owner: EntryOwner): string {
  return typeof entry.origin === "string" && entry.origin !== "" ? entry.origin : (owner.id ?? "manual");
}

/**
 * A slot; one that loaded carries its skill under its own name, so that it is its own winner
 * (see `precedence.ts`): a load makes one object per entry, not two.
 */
function newSlot(
  entry: SourceEntry,
  owner: EntryOwner,
  origin: string,
  outcome: Outcome,
  identity?: string,
  head?: HeadOrigin,
): Slot {
  const slot: { -readonly [K in keyof Slot]: Slot[K] } = { location: entry.location, entry, origin, outcome };
  if (owner.id !== undefined) slot.source = owner.id;
  if (owner.firstWins) slot.firstWins = true;
  if (identity !== undefined) slot.identity = identity;
  if (head !== undefined) slot.head = head;
  if (outcome.ok) {
    slot.key = outcome.skill.name;
    slot.skill = outcome.skill;
  }
  return slot;
}
