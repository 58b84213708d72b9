import {
  isDigest,
  parseSkill,
  quote,
  type ScanContext,
  SkillError,
  type SkillHead,
  type SourceEntry,
  sha256Digest,
} from "@skill/core";
import { decodeSegment, SKILL_FILE } from "./protocol.js";
import type { Listed, ListedResource } from "./skill-listing.js";
import { combine, readResource, type SourceContext } from "./source-request.js";

/**
 * The files a listing gives a skill, by path: its resources under its folder, without
 * SKILL.md and without those of other skills inside it (listed skills, and SKILL.md files
 * among the resources), whose files belong to them, never to this skill.
 */
function ownFiles(skill: Listed, folders: ReadonlySet<string>): Map<string, ListedResource> {
  const prefix = `${skill.folder}/`;
  const inner = new Set<string>();
  for (const r of skill.resources ?? []) {
    if (r.uri !== skill.uri && r.uri.startsWith(prefix) && r.uri.endsWith(`/${SKILL_FILE}`)) {
      inner.add(r.uri.slice(0, -`/${SKILL_FILE}`.length));
    }
  }
  const nested = (uri: string) => {
    for (let at = uri.lastIndexOf("/"); at > skill.folder.length; at = uri.lastIndexOf("/", at - 1)) {
      const folder = uri.slice(0, at);
      if (folders.has(folder) || inner.has(folder)) return true;
    }
    return false;
  };
  const files = new Map<string, ListedResource>();
  for (const r of skill.resources ?? []) {
    if (r.uri === skill.uri || !r.uri.startsWith(prefix) || nested(r.uri)) continue;
    files.set(r.uri.slice(prefix.length).split("/").map(decodeSegment).join("/"), r);
  }
  return files;
}

/** Bytes a server served, against what it listed for them: size, then digest. */
function verify(
  source: SourceContext,
  uri: string,
  bytes: Uint8Array,
  listed: ListedResource | undefined,
  ctx: ScanContext,
): void {
  const { id } = source;
  if (listed?.size !== undefined && bytes.byteLength !== listed.size) {
    throw new SkillError(
      "INTEGRITY_ERROR",
      `Size mismatch for ${uri}: ${id} listed ${listed.size} bytes, it served ${bytes.byteLength}`,
      { path: uri },
    );
  }
  const digest = listed?.digest;
  if (digest === undefined) {
    ctx.logger?.warn(`${id}: ${uri} is listed without a digest; it was read unchecked`, {
      code: "mcp-no-digest",
      path: uri,
      source: id,
    });
    return;
  }
  const actual = sha256Digest(bytes);
  if (!isDigest(digest) || actual !== digest) {
    throw new SkillError(
      "INTEGRITY_ERROR",
      `Digest mismatch for ${uri}: ${id} listed ${quote(digest, 80)}, the bytes it served hash to ${actual}`,
      { path: uri },
    );
  }
}

function nameMismatch(skill: Listed, name: string): SkillError {
  return new SkillError(
    "INVALID_FIELD",
    `Skill ${skill.uri} names itself ${quote(name)}: the last URI path segment before SKILL.md (${quote(skill.segment)}) must equal the frontmatter name`,
    { path: skill.uri, field: "name" },
  );
}

function checkName(skill: Listed, bytes: Uint8Array): void {
  let name: string;
  try {
    name = parseSkill(new TextDecoder().decode(bytes), skill.uri, {
      maxBytes: Number.POSITIVE_INFINITY,
    }).skill.name;
  } catch {
    return; // the registry reports a file that does not parse, with its own rules
  }
  if (name !== skill.segment) throw nameMismatch(skill, name);
}

/** An entry that fails alone when the registry loads it, without asking the server anything. */
function failingEntry(source: SourceContext, skill: Listed, error: SkillError): SourceEntry {
  return {
    location: skill.uri,
    origin: source.origin,
    read: async () => {
      throw error;
    },
  };
}

/**
 * The registry's entry of a listed skill. `loadDeadline`: the scan's deadline, which the first
 * read of a skill listed without a head shares.
 */
export function toEntry(
  source: SourceContext,
  skill: Listed,
  folders: ReadonlySet<string>,
  loadDeadline: number,
): SourceEntry {
  if (skill.refused) return failingEntry(source, skill, skill.refused);
  const named = skill.frontmatter?.name;
  if (typeof named === "string" && named.trim() !== skill.segment) {
    return failingEntry(source, skill, nameMismatch(skill, named.trim()));
  }
  let firstRead: number | undefined = loadDeadline;
  const own = skill.resources?.find((r) => r.uri === skill.uri);
  // The skill's own files, worked out when they are first asked for: a load asks for none.
  let files: Map<string, ListedResource> | undefined;
  const filesOf = () => (files ??= ownFiles(skill, folders));
  const head: SkillHead | undefined = skill.frontmatter && {
    frontmatter: skill.frontmatter,
    ...(isDigest(own?.digest) ? { digest: own.digest } : {}),
    ...(own?.size === undefined ? {} : { size: own.size }),
  };
  const { ignoreFields } = source;
  return {
    location: skill.uri,
    origin: source.origin,
    ...(ignoreFields.length > 0 ? { ignoreFields } : {}),
    ...(head ? { head } : {}),
    read: async (ctx: ScanContext) => {
      // Only a skill listed without a head is read while the registry loads: that read
      // shares the server's deadline; every later read gets a deadline of its own.
      const deadline = head ? undefined : firstRead;
      firstRead = undefined;
      const bytes = await readResource(source, skill.uri, combine(source.signal, ctx.signal), deadline);
      // Without resources (or with "dynamic" ones) the listing promised no bytes to check;
      // the frontmatter is still checked against the head.
      if (skill.resources) verify(source, skill.uri, bytes, own, ctx);
      // With a head, core checks every frontmatter field against the listing (whose name
      // was checked at scan): a name that differs is then the INTEGRITY_ERROR it is.
      if (!head) checkName(skill, bytes);
      return bytes;
    },
    listFiles: async () => [...filesOf().keys()],
    readFile: async (path: string, ctx: ScanContext) => {
      const listed = filesOf().get(path);
      if (!listed) {
        throw new SkillError("NOT_FOUND", `${source.id}: ${skill.uri} lists no file ${quote(path)}`, {
          path,
        });
      }
      const bytes = await readResource(source, listed.uri, combine(source.signal, ctx.signal));
      verify(source, listed.uri, bytes, listed, ctx);
      return bytes;
    },
  };
}
