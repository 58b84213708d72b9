import { basename, dirname, isAbsolute } from "node:path";
import { sha256Digest } from "../files/digest.js";
import { normalizeFileList } from "../files/file-list.js";
import { resolveInside } from "../files/inside.js";
import { decodeEntry, readSkillBytes, tooLargeError } from "../files/read-file.js";
import { readInsideAt } from "../files/read-inside.js";
import { skillFileAt, skillFiles } from "../files/skill-files.js";
import { firstDifference } from "../parse/json-value.js";
import { isSkillFileName, SKILL_FILE } from "../spec/constants.js";
import { printable, quote, SkillError } from "../spec/errors.js";
import type { ScanContext, SkillHead } from "../spec/skill-source.js";
import type { SkillInfo } from "../spec/types.js";
import { isAbortOf, raceAbort } from "../util/abort.js";
import type { EntryLoader } from "./entry-loader.js";
import { toSkillError, withoutIgnored } from "./outcome.js";
import type { Winner } from "./precedence.js";

/** Codes a source's `read` may fail with that `read` passes on as they are. */
const SOURCE_FAILURES: ReadonlySet<string> = new Set([
  "INTEGRITY_ERROR",
  "REMOTE_ERROR",
  "HTTP_ERROR",
  "LIMIT_EXCEEDED",
]);
/** Files a skill has at most (SEP-2640's cap on resources per skill). */
const MAX_SKILL_FILES = 512;

function changedOnDisk(name: string, location: string, reason: string, cause?: unknown): SkillError {
  return new SkillError(
    "NOT_FOUND",
    `Skill ${quote(name)} changed on disk since it was loaded: ${reason} (${location}); load the skills again`,
    { path: location, ...(cause === undefined ? {} : { cause }) },
  );
}

function integrityError(name: string, location: string, reason: string): SkillError {
  return new SkillError(
    "INTEGRITY_ERROR",
    `Skill ${quote(name)} does not match what its source listed: ${reason} (${location}); nothing of it was used`,
    { path: location },
  );
}

/** Size and digest of the bytes read, against a head a source gave. */
function checkBytes(name: string, location: string, value: string | Uint8Array, head: SkillHead): void {
  if (head.size === undefined && head.digest === undefined) return;
  const bytes = typeof value === "string" ? Buffer.from(value, "utf8") : value;
  if (head.size !== undefined && bytes.byteLength !== head.size) {
    throw integrityError(name, location, `it is ${bytes.byteLength} bytes, the listing said ${head.size}`);
  }
  if (head.digest !== undefined && sha256Digest(bytes) !== head.digest.toLowerCase()) {
    throw integrityError(name, location, `its sha256 digest is not the listed ${head.digest}`);
  }
}

/**
 * The skill with its body, read now: metadata and body from the same bytes, checked against
 * what the registry holds. A head a source gave must match byte size, digest and every
 * frontmatter field (`INTEGRITY_ERROR` otherwise); a cached head that no longer matches is
 * dropped and the skill reads as changed on disk. Bytes over `maxBytes` are `LIMIT_EXCEEDED`,
 * whatever the head (a cached one is dropped).
 */
export async function readSkill(winner: Winner, loader: EntryLoader, ctx: ScanContext): Promise<SkillInfo> {
  return (await readVerified(winner, loader, ctx)).skill;
}

/** SKILL.md's bytes and the skill parsed from them, verified as {@link readSkill} says. */
async function readVerified(
  winner: Winner,
  loader: EntryLoader,
  ctx: ScanContext,
): Promise<{ readonly skill: SkillInfo; readonly bytes: Uint8Array }> {
  const { location, entry, key, head } = winner;
  const own = winner.outcome.skill.name;
  let value: string | Uint8Array;
  try {
    value = entry.read
      ? await raceAbort(entry.read(ctx), ctx.signal)
      : (await raceAbort(readSkillBytes(location, loader.maxBytes), ctx.signal)).bytes;
  } catch (error) {
    if (isAbortOf(error, ctx.signal)) throw error;
    await loader.dropCached(head);
    // What a source says of its own failure (tampering, a server down), and a file grown past
    // maxBytes, is not "changed on disk": the skill is there, it is not read.
    if (SkillError.isInstance(error) && SOURCE_FAILURES.has(error.code)) throw error;
    throw changedOnDisk(key, location, toSkillError(error, location).message, error);
  }
  if (head?.from === "source") checkBytes(key, location, value, head.head);
  let text: string;
  let invalidUtf8: boolean;
  try {
    ({ text, invalidUtf8 } = decodeEntry(value, location, loader.maxBytes));
  } catch (error) {
    // Over maxBytes is what the file is, whoever listed it (DESIGN §3: LIMIT_EXCEEDED); the
    // caller must not be told the skill is gone.
    if (SkillError.isInstance(error) && error.code === "LIMIT_EXCEEDED") throw error;
    throw changedOnDisk(key, location, toSkillError(error, location).message, error);
  }
  const analysis = loader.analyze(location, winner.source, winner.origin, text, invalidUtf8);
  const accepted = loader.accept(analysis, location);
  if (!accepted.ok || !analysis.skill) {
    if (head?.from === "source")
      throw integrityError(key, location, accepted.ok ? "it does not parse" : accepted.error.message);
    await loader.dropCached(head);
    throw changedOnDisk(key, location, accepted.ok ? "it does not parse" : accepted.error.message, accepted);
  }
  if (head) {
    const field = firstDifference(analysis.skill.frontmatter, head.head.frontmatter);
    if (field !== undefined) {
      if (head.from === "source") {
        throw integrityError(
          key,
          location,
          `its frontmatter field '${printable(field)}' differs from the listing`,
        );
      }
      await loader.dropCached(head);
      throw changedOnDisk(key, location, `its frontmatter field '${printable(field)}' changed`);
    }
  }
  if (analysis.skill.name !== own) {
    await loader.dropCached(head);
    throw changedOnDisk(key, location, `it now names itself ${quote(analysis.skill.name)}`);
  }
  let kept = withoutIgnored(analysis.skill, entry).skill;
  // What the text cannot say (Codex's sidecar under `codexPolicy`), as the registry holds it.
  if (!winner.outcome.skill.modelInvocable && kept.modelInvocable) {
    kept = Object.freeze({ ...kept, modelInvocable: false });
  }
  const skill = key === own ? kept : Object.freeze({ ...kept, name: key });
  return { skill, bytes: typeof value === "string" ? Buffer.from(value, "utf8") : value };
}

/** The folder of a skill that lives on disk, or `undefined` for a URI or a skill that is a file of its own. */
function folderOf(winner: Winner): string | undefined {
  const { location } = winner;
  return isAbsolute(location) && isSkillFileName(basename(location)) ? dirname(location) : undefined;
}

/** Every bundled file of the skill (SKILL.md excluded), sorted, at most `limit`. */
export async function listBundled(winner: Winner, limit: number, ctx: ScanContext): Promise<string[]> {
  const { entry } = winner;
  if (entry.listFiles) {
    return normalizeFileList(await raceAbort(entry.listFiles(ctx), ctx.signal), limit);
  }
  const folder = folderOf(winner);
  if (folder === undefined) return [];
  const files = await skillFiles(folder, {
    limit: Math.min(limit, MAX_SKILL_FILES) + 1,
    ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
  });
  const out: string[] = [];
  const own = basename(winner.location);
  for (const file of files) {
    if (file.path !== SKILL_FILE && file.path !== own && out.length < limit) out.push(file.path);
  }
  return out;
}

/**
 * One bundled file of the skill, by the one path rule: `UNSAFE_PATH` for a path that leaves
 * the folder (lexically, or through a link at open), `NOT_FOUND` for one `files()` would not
 * list, `LIMIT_EXCEEDED` over `maxFileBytes`. `SKILL.md` itself gives its bytes exactly as
 * `read` reads and verifies them (for audits of the raw text).
 */
export async function readBundled(
  winner: Winner,
  path: string,
  maxFileBytes: number,
  loader: EntryLoader,
  ctx: ScanContext,
): Promise<Uint8Array> {
  // The skill's own file by its usual name, or by the one it has (Amp's `skill.md`).
  if (path === SKILL_FILE || (isAbsolute(winner.location) && path === basename(winner.location))) {
    return (await readVerified(winner, loader, ctx)).bytes;
  }
  const folder = folderOf(winner);
  // The lexical rule first, whatever the entry: `..` never reaches a source either.
  resolveInside(folder ?? "/", path);
  const { entry } = winner;
  // One path judged by the walker's rules: a folder of thousands of files is not listed per
  // read. The real paths it was judged by are the ones read.
  const byWalk = entry.listFiles || folder === undefined;
  const judged = byWalk ? undefined : skillFileAt(folder, path);
  const listed = byWalk
    ? (await listBundled(winner, MAX_SKILL_FILES, ctx)).includes(path)
    : judged !== undefined;
  if (!listed) {
    throw new SkillError("NOT_FOUND", `Skill ${quote(winner.key)} has no file ${quote(path)}`, { path });
  }
  if (entry.readFile) {
    const bytes = await raceAbort(entry.readFile(path, ctx), ctx.signal);
    if (!(bytes instanceof Uint8Array)) {
      throw new SkillError(
        "READ_ERROR",
        `Failed to read ${quote(path)} of skill ${quote(winner.key)}: its source returned no bytes`,
        { path },
      );
    }
    if (bytes.byteLength > maxFileBytes)
      throw tooLargeError(`${winner.location} (${path})`, bytes.byteLength, maxFileBytes);
    return bytes;
  }
  if (folder === undefined) {
    throw new SkillError(
      "NOT_FOUND",
      `Skill ${quote(winner.key)} has no readable file ${quote(path)}: its source reads none`,
      { path },
    );
  }
  const options = { maxBytes: maxFileBytes, ...(ctx.signal === undefined ? {} : { signal: ctx.signal }) };
  return readInsideAt(folder, path, options, judged);
}
