import { statSync } from "node:fs";
import { describeKind, SkillError } from "./errors.js";
import { readSkillFileSync, type SkillFileText } from "./read-file.js";
import type { FileKey } from "./types.js";
import { parseYaml, type YamlResult } from "./yaml.js";

/**
 * SKILL.md reads shared by loads that run together (see {@link sharedReads}). Opaque: pass it
 * to `SkillServiceOptions.sharedReads`.
 */
export interface SharedReads {
  readonly kind: "shared-reads";
}

type Read =
  | { readonly ok: true; readonly file: SkillFileText }
  | { readonly ok: false; readonly error: unknown };

/** What one pass remembers: each file's state, its read, and each frontmatter text's YAML parse. */
export class ReadMemo implements SharedReads {
  readonly kind = "shared-reads";
  readonly #keys = new Map<string, FileKey | null>();
  readonly #reads = new Map<string, Read>();
  readonly #yaml = new Map<string, YamlResult>();

  /** The file's state when first asked (`null`: not a file that could be statted). */
  key(path: string): FileKey | null {
    let key = this.#keys.get(path);
    if (key === undefined) {
      try {
        const s = statSync(path);
        key = s.isFile() ? { path, dev: s.dev, ino: s.ino, size: s.size, mtimeMs: s.mtimeMs } : null;
      } catch {
        key = null;
      }
      this.#keys.set(path, key);
    }
    return key;
  }

  /** `readSkillFileSync(path, maxBytes, headBytes)`, once per path and limits; rethrows its error. */
  read(path: string, maxBytes: number, headBytes: number): SkillFileText {
    const id = `${maxBytes}:${headBytes}:${path}`;
    let read = this.#reads.get(id);
    if (read === undefined) {
      try {
        read = { ok: true, file: readSkillFileSync(path, maxBytes, headBytes) };
      } catch (error) {
        read = { ok: false, error };
      }
      this.#reads.set(id, read);
    }
    if (!read.ok) throw read.error;
    return read.file;
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
 * service per agent, as `compareAgents` does): services given the same one stat, read and
 * YAML-parse each SKILL.md once between them, and each still applies its own rules to what was
 * parsed. It remembers every file as first seen, for its whole life: give it to services that
 * load once, never to one that is `update()`d to see changes.
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
