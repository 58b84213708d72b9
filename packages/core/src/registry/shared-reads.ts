import { dirname } from "node:path";
import {
  CODEX_SIDECAR_FOLDER,
  codexUserOnly,
  readCodexSidecar,
  statCodexSidecar,
} from "../files/codex-sidecar.js";
import { type FileStat, readSkillFileSync, type SkillFileText } from "../files/read-file.js";
import type { Analysis, ParseMemo } from "../parse/analysis.js";
import { dataOf, splitText } from "../parse/analyze.js";
import type { FrontmatterBounds } from "../parse/frontmatter.js";
import { bodySummary } from "../parse/summary.js";
import { parseYaml, type YamlResult } from "../parse/yaml.js";
import { describeKind, SkillError } from "../spec/errors.js";
import type { SharedReads } from "../spec/service-options.js";
import type { Diagnostic } from "../spec/types.js";

type Read =
  | { readonly ok: true; readonly file: SkillFileText & { readonly complete: boolean } }
  | { readonly ok: false; readonly error: unknown };

/** `map`'s value for `key`, made by `make` the first time it is asked for. */
function made<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/**
 * What one pass remembers: each file's read (its text and state), and of each text what no
 * load rule changes (its split, its YAML parse, that parse as JSON data).
 */
export class ReadMemo implements SharedReads, ParseMemo {
  readonly kind = "shared-reads";
  readonly #listed: SharedReadsOptions["listed"];

  constructor(listed?: SharedReadsOptions["listed"]) {
    this.#listed = listed;
  }

  readonly #splits = new Map<string, { normalized: string; bounds: FrontmatterBounds | undefined }>();
  /** By how findings are judged, then by file: the findings on one parse and body. */
  readonly #findings = new Map<
    string,
    Map<string, { raw: object; body: string | undefined; found: readonly Diagnostic[] }>
  >();
  readonly #data = new Map<object, { tooLarge: boolean; data?: Record<string, unknown> }>();
  /** By limits (`maxBytes:headBytes`), then by path. */
  readonly #reads = new Map<string, Map<string, Read>>();
  readonly #yaml = new Map<string, YamlResult>();
  readonly #summaries = new Map<string, { summary: string | undefined }>();
  /** By who reads (rules, source, origin), then by file: a whole analysis of one text. */
  readonly #analyses = new Map<string, Map<string, { text: string; analysis: Analysis }>>();
  /** By limit, then by path: what a load takes of a file (see {@link loadRead}). */
  readonly #loadReads = new Map<number, Map<string, unknown>>();
  /** By SKILL.md path: the state of its Codex sidecar, and what it said once read. */
  readonly #sidecars = new Map<string, { readonly stat: FileStat | null; userOnly?: boolean }>();

  /** `readSkillFileSync(path, maxBytes, headBytes)`, once per path and limits; rethrows its error. */
  read(path: string, maxBytes: number, headBytes: number): SkillFileText & { readonly complete: boolean } {
    const reads = made(this.#reads, `${maxBytes}:${headBytes}`, () => new Map<string, Read>());
    const read = made(reads, path, (): Read => {
      try {
        return { ok: true, file: readSkillFileSync(path, maxBytes, headBytes) };
      } catch (error) {
        return { ok: false, error };
      }
    });
    if (!read.ok) throw read.error;
    return read.file;
  }

  /**
   * `make()`, what a load takes of the file at `path` (a prefix cut to what the analysis
   * reads), once per path and limit: every load that shares these reads gets the same text.
   */
  loadRead<T>(path: string, maxBytes: number, make: () => T): T {
    return made(
      made(this.#loadReads, maxBytes, () => new Map<string, unknown>()),
      path,
      make,
    ) as T;
  }

  /** `statCodexSidecar(path)`, once per path; `userOnly` once it was read. */
  sidecar(path: string): { readonly stat: FileStat | null; userOnly?: boolean } {
    return made(this.#sidecars, path, () => ({
      stat: this.#listedWithout(path) ? null : statCodexSidecar(path),
    }));
  }

  /** Whether the folder of `path` was listed, by the caller's crawl, with no `agents` entry (in any case). */
  #listedWithout(path: string): boolean {
    const names = this.#listed?.(dirname(path));
    return names !== undefined && !names.some((name) => name.toLowerCase() === CODEX_SIDECAR_FOLDER);
  }

  /** `readCodexSidecar(path)`, once per path, only when the stat found a sidecar. */
  sidecarUserOnly(path: string): boolean {
    const known = this.sidecar(path);
    if (known.stat === null) return false;
    known.userOnly ??= readCodexSidecar(path);
    return known.userOnly;
  }

  split(text: string): { normalized: string; bounds: FrontmatterBounds | undefined } {
    return made(this.#splits, text, () => splitText(text));
  }

  findings(...[raw, body, location, how, check]: Parameters<ParseMemo["findings"]>): readonly Diagnostic[] {
    const byFile = made(this.#findings, how, () => new Map());
    const known = byFile.get(location);
    if (known !== undefined && known.raw === raw && known.body === body) return known.found;
    const found = check();
    byFile.set(location, { raw, body, found });
    return found;
  }

  /** `bodySummary(body)`, once per body. */
  summary(body: string): string | undefined {
    return made(this.#summaries, body, () => ({ summary: bodySummary(body) })).summary;
  }

  /** `dataOf(value, limit)`, once per parsed value (the limit is one constant). */
  data(value: object, limit: number): { tooLarge: boolean; data?: Record<string, unknown> } {
    return made(this.#data, value, () => dataOf(value, limit));
  }

  /**
   * `make()`, the analysis of `text` at `location` by one set of rules for one source (`who`),
   * once: loads that read a file alike (agents with the same rules over a shared root) share
   * it. An analysis is never changed after it is made.
   */
  analysis(who: string, location: string, text: string, make: () => Analysis): Analysis {
    const byFile = made(this.#analyses, who, () => new Map<string, { text: string; analysis: Analysis }>());
    const known = byFile.get(location);
    if (known !== undefined && known.text === text) return known.analysis;
    const analysis = make();
    byFile.set(location, { text, analysis });
    return analysis;
  }

  /** `parseYaml(text)`, once per text. */
  yaml(text: string): YamlResult {
    return made(this.#yaml, text, () => parseYaml(text));
  }
}

/**
 * A memo for loads that run together over the same files under different load rules (one
 * service per agent, as `compareAgents` does): services given the same one open, read and
 * YAML-parse each SKILL.md once between them (a head cache keys on the state that read saw),
 * and each still applies its own rules to what was parsed. It remembers every file as first
 * seen, for its whole life: give it to services that load once, never to one that is
 * `update()`d to see changes.
 *
 * @example
 * const reads = sharedReads();
 * const a = new SkillService({ sources, sharedReads: reads });
 * const b = new SkillService({ sources, nameFallback: "folder", sharedReads: reads });
 * await Promise.all([a.discoverAndLoad(), b.discoverAndLoad()]);
 */
export function sharedReads(options: SharedReadsOptions = {}): SharedReads {
  return new ReadMemo(options.listed);
}

/** What {@link sharedReads} may be told. */
export interface SharedReadsOptions {
  /**
   * The names in `folder`, when the caller has listed it already (a crawl that entered skill
   * folders), else `undefined`: a skill folder listed with no `agents` entry has no Codex
   * sidecar, and costs no `stat`. The listing must be of the same moment as the loads.
   */
  readonly listed?: (folder: string) => readonly string[] | undefined;
}

/** The memo behind a `sharedReads` option; a value `sharedReads()` did not make is refused. */
export function readMemoOf(value: SharedReads | undefined): ReadMemo | undefined {
  if (value === undefined || value instanceof ReadMemo) return value;
  throw new SkillError(
    "INVALID_FIELD",
    `Invalid option 'sharedReads': expected what sharedReads() returns, found ${describeKind(value)}`,
    { field: "sharedReads" },
  );
}

/**
 * Whether the skill whose SKILL.md is at `location` says "user-only" the Codex way:
 * `policy.allow_implicit_invocation: false` in `agents/openai.yaml` beside it (see
 * `LoadRules.codexPolicy`). With `sharedReads`, the stat and the read are shared with the loads
 * given the same memo (a Codex load among them pays for them once).
 *
 * @example
 * codexSidecarUserOnly("/repo/.agents/skills/deploy/SKILL.md"); // true when its openai.yaml says so
 */
export function codexSidecarUserOnly(
  location: string,
  options: { readonly sharedReads?: SharedReads } = {},
): boolean {
  const memo = readMemoOf(options.sharedReads);
  return memo ? memo.sidecarUserOnly(location) : codexUserOnly(location);
}
