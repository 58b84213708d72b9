import type { Diagnostic, Logger, SkillError } from "@skill/core";
import type { RemoteSkillManifest } from "./manifest.js";

export interface BuildManifestOptions {
  /** Leave out skills with any spec finding (a name that does not match its folder, …). Default `false`. */
  readonly strict?: boolean;
  /**
   * Write the hybrid index (default `true`): v0.2 `$schema`, `type`, `url` and `digest` per skill,
   * plus `files` for v0.1 clients, and a `.tar.gz` beside each skill with bundled files. `false`
   * writes a v0.1-only index (no `$schema`, no archives) for servers that cannot hold archives.
   */
  readonly archives?: boolean;
  /** The absolute URL the pack will be served from: artifact `url`s become absolute. Default: relative to the index. */
  readonly baseUrl?: string;
  /**
   * The skills to pack: `SKILL.md` paths or skill folders, absolute or relative to `dir`, as a
   * crawl such as discovery's `scanSkillFiles(dir)` returns them. Default: every `SKILL.md` that
   * core's walker (`skillFiles(dir, { nested: true })`) lists under `dir`: dot-folders,
   * `node_modules` and links that leave `dir` are not entered.
   */
  readonly skills?: readonly string[];
  /**
   * `writeManifest` only: write the index of the skills that could be listed, leaving out those
   * that failed (still reported in `failed`). Default `false`: a pack is published whole or not
   * at all.
   */
  readonly skipInvalid?: boolean;
  readonly logger?: Logger;
  /**
   * Told as each skill's packing starts (`done` skills of `total` packed before it), for a
   * progress display. An observer: if it throws, the pack goes on.
   */
  readonly onProgress?: (event: PackProgress) => void;
}

/** A skill of a pack about to be packed, for a progress display. */
export interface PackProgress {
  /** The skill's folder, relative to the pack's folder. */
  readonly skill: string;
  readonly done: number;
  readonly total: number;
}

/** A pack's manifest, and the skill folders that could not be listed. */
export interface BuildManifestResult {
  readonly manifest: RemoteSkillManifest;
  /** Skill folders left out: `path` is the folder, `error` says why (parse error, unsafe name or file…). */
  readonly failed: readonly { readonly path: string; readonly error: SkillError }[];
  /**
   * Findings about the pack (spec warnings, repaired YAML, nested skill folders, links that
   * were not packed because they leave their skill folder or the pack).
   */
  readonly diagnostics: readonly Diagnostic[];
  /** The archives the index names, in the order of its skills. */
  readonly archives: readonly PackedArchive[];
}

/** One archive of a pack, with what a pull measures against its limits. */
export interface PackedArchive {
  /** Relative to the pack folder, `/`-separated. */
  readonly path: string;
  /** The exact bytes (`maxArchiveBytes` of a pull applies to their length). */
  readonly bytes: Uint8Array;
  /** The skill it holds. */
  readonly name: string;
  /** Entries it holds (`maxArchiveFiles`). */
  readonly entries: number;
  /** Bytes it unpacks to as a pull counts them, each file as at least 4 KiB (`maxUnpackedBytes`). */
  readonly unpackedBytes: number;
}
