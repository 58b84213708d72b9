import { statSync } from "node:fs";
import { basename, dirname, isAbsolute } from "node:path";
import { parseYaml } from "../parse/yaml.js";
import { isSkillFileName } from "../spec/constants.js";
import { isMapping } from "../util/mapping.js";
import { resolveInside } from "./inside.js";
import { type FileStat, fileStatOf } from "./read-file.js";
import { readInsideSync } from "./read-inside.js";

/** The folder of a skill that holds Codex's settings of it. */
export const CODEX_SIDECAR_FOLDER = "agents";
/** Where Codex reads a skill's own settings, relative to the folder of its SKILL.md. */
export const CODEX_SIDECAR = `${CODEX_SIDECAR_FOLDER}/openai.yaml`;

/** Far above any real sidecar (a few fields); a larger one is not read, as if it said nothing. */
const MAX_SIDECAR_BYTES = 64 * 1024;

/** The folder of a SKILL.md on disk, or `undefined` for a URI or a skill without a folder (a flat `.md`). */
function folderOf(location: string): string | undefined {
  return isAbsolute(location) && isSkillFileName(basename(location)) ? dirname(location) : undefined;
}

/**
 * The state of the Codex sidecar beside the SKILL.md at `location`, from one `stat`: `null` when
 * there is no regular file there (or no skill folder), as Codex reads nothing then.
 */
export function statCodexSidecar(location: string): FileStat | null {
  const folder = folderOf(location);
  if (folder === undefined) return null;
  try {
    // Nearly every skill has none: `throwIfNoEntry` spares an error object per skill.
    const stats = statSync(resolveInside(folder, CODEX_SIDECAR), { throwIfNoEntry: false });
    return stats?.isFile() ? fileStatOf(stats) : null;
  } catch {
    return null; // missing or unreadable: Codex goes on without it
  }
}

/**
 * Whether the Codex sidecar beside the SKILL.md at `location` makes the skill user-only:
 * `policy.allow_implicit_invocation` is the YAML boolean `false`. Read through the safe reader
 * (inside the skill folder, no link out of it); a file that cannot be read or parsed says
 * nothing, as Codex ignores it then. Call it only when {@link statCodexSidecar} found one.
 */
export function readCodexSidecar(location: string): boolean {
  const folder = folderOf(location);
  if (folder === undefined) return false;
  let text: string;
  try {
    text = Buffer.from(readInsideSync(folder, CODEX_SIDECAR, { maxBytes: MAX_SIDECAR_BYTES })).toString(
      "utf8",
    );
  } catch {
    return false;
  }
  return codexPolicyUserOnly(text);
}

/** {@link statCodexSidecar}, then {@link readCodexSidecar} when there is one. */
export function codexUserOnly(location: string): boolean {
  return statCodexSidecar(location) !== null && readCodexSidecar(location);
}

/** Whether the text of an `agents/openai.yaml` says `policy: { allow_implicit_invocation: false }`. */
export function codexPolicyUserOnly(text: string): boolean {
  const parsed = parseYaml(text);
  if (!parsed.ok || !isMapping(parsed.value)) return false;
  const policy = parsed.value.policy;
  // Codex 0.171 reads the value as a boolean: a string "false" fails its parse of the whole file.
  return isMapping(policy) && policy.allow_implicit_invocation === false;
}

/** A sidecar's state as a cached head keeps it: dev, ino, size, mtimeMs, ctimeMs; `null` for none. */
export function sidecarKey(stat: FileStat | null): readonly number[] | null {
  return stat === null ? null : [stat.dev, stat.ino, stat.size, stat.mtimeMs, stat.ctimeMs];
}

/** Whether a stored {@link sidecarKey} is this state (one stored without a change time is not). */
export function sameSidecarKey(stored: unknown, stat: FileStat | null): boolean {
  if (stat === null) return stored === null;
  return (
    Array.isArray(stored) &&
    stored.length === 5 &&
    stored[0] === stat.dev &&
    stored[1] === stat.ino &&
    stored[2] === stat.size &&
    stored[3] === stat.mtimeMs &&
    stored[4] === stat.ctimeMs
  );
}
