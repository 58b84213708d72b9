import { readSkillFileSync, type SkillFileText } from "../files/read-file.js";
import type { ParseMemo } from "../parse/analysis.js";
import { dataOf, splitText } from "../parse/analyze.js";
import type { FrontmatterBounds } from "../parse/frontmatter.js";
import { parseYaml, type YamlResult } from "../parse/yaml.js";
import { describeKind, SkillError } from "../spec/errors.js";
import type { SharedReads } from "../spec/service-options.js";
import type { Diagnostic } from "../spec/types.js";

type Read =
  | { readonly ok: true; readonly file: SkillFileText }
  | { readonly ok: false; readonly error: unknown };

/**
 * What one pass remembers: each file's read (its text and state), and of each text what no
 * load rule changes (its split, its YAML parse, that parse as JSON data).
 */
export class ReadMemo implements SharedReads, ParseMemo {
  readonly kind = "shared-reads";
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

  /** `readSkillFileSync(path, maxBytes, headBytes)`, once per path and limits; rethrows its error. */
  read(path: string, maxBytes: number, headBytes: number): SkillFileText {
    const limits = `${maxBytes}:${headBytes}`;
    let reads = this.#reads.get(limits);
    if (reads === undefined) {
      reads = new Map();
      this.#reads.set(limits, reads);
    }
    let read = reads.get(path);
    if (read === undefined) {
      try {
        read = { ok: true, file: readSkillFileSync(path, maxBytes, headBytes) };
      } catch (error) {
        read = { ok: false, error };
      }
      reads.set(path, read);
    }
    if (!read.ok) throw read.error;
    return read.file;
  }

  split(text: string): { normalized: string; bounds: FrontmatterBounds | undefined } {
    let split = this.#splits.get(text);
    if (split === undefined) {
      split = splitText(text);
      this.#splits.set(text, split);
    }
    return split;
  }

  findings(
    raw: object,
    body: string | undefined,
    location: string,
    how: string,
    check: () => Diagnostic[],
  ): readonly Diagnostic[] {
    let byFile = this.#findings.get(how);
    if (byFile === undefined) {
      byFile = new Map();
      this.#findings.set(how, byFile);
    }
    const known = byFile.get(location);
    if (known !== undefined && known.raw === raw && known.body === body) return known.found;
    const found = check();
    byFile.set(location, { raw, body, found });
    return found;
  }

  /** `dataOf(value, limit)`, once per parsed value (the limit is one constant). */
  data(value: object, limit: number): { tooLarge: boolean; data?: Record<string, unknown> } {
    let made = this.#data.get(value);
    if (made === undefined) {
      made = dataOf(value, limit);
      this.#data.set(value, made);
    }
    return made;
  }

  /** `parseYaml(text)`, once per text. */
  yaml(text: string): YamlResult {
    let parsed = this.#yaml.get(text);
    if (parsed === undefined) {
      parsed = parseYaml(text);
      this.#yaml.set(text, parsed);
    }
    return parsed;
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
export function sharedReads(): SharedReads {
  return new ReadMemo();
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
