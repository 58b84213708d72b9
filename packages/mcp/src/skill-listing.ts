import { type Diagnostic, errorMessage, isMapping, printable, quote, SkillError } from "@skill/core";
import {
  decodeSegment,
  METHOD_NOT_FOUND,
  SKILL_FILE,
  SKILL_LIMITS,
  SKILL_SCHEME,
  SKILLS_EXTENSION_ID,
} from "./protocol.js";
import { call, DeadlinePassed, errorCode, type SourceContext } from "./source-request.js";

/** A resource as listed: what its bytes must be. */
export interface ListedResource {
  readonly uri: string;
  readonly digest?: string;
  /** Bytes, when the listing gave a whole number >= 0. */
  readonly size?: number;
}

/** One skill as `skills/list` gave it, checked. */
export interface Listed {
  readonly uri: string;
  /** Why the skill fails when it is loaded, found in the listing alone. */
  readonly refused?: SkillError;
  /** `resources: "dynamic"`: the server lists no files to verify against. */
  readonly dynamic?: boolean;
  /** The folder URI: the skill URI without `/SKILL.md`. */
  readonly folder: string;
  /** The decoded last path segment before SKILL.md: what the frontmatter name must be. */
  readonly segment: string;
  /** The listed frontmatter, when it is a mapping: the skill registers from it without a read. */
  readonly frontmatter?: Readonly<Record<string, unknown>>;
  readonly resources?: readonly ListedResource[];
}

// Warnings, as for an unavailable remote pack: what the source could not use never stops
// the skills it did find (or the other sources) from loading.
function diagnostic(source: SourceContext, code: string, message: string, path = source.id): Diagnostic {
  return { code, severity: "warning", message, path, source: source.id };
}

/** The diagnostic of a `skills/list` request that failed (`kept`: skills listed before it). */
function listFailure(source: SourceContext, error: unknown, kept: number): Diagnostic {
  const { id } = source;
  if (error instanceof DeadlinePassed) {
    return diagnostic(
      source,
      "mcp-timeout",
      `${id}: skills/list got no answer within the ${source.timeout} ms deadline${kept > 0 ? `; the ${kept} skills listed before it are kept` : ""}`,
    );
  }
  if (errorCode(error) === METHOD_NOT_FOUND) {
    return diagnostic(
      source,
      "mcp-no-skills",
      `${id}: the server does not offer skills (skills/list: method not found; it does not implement ${quote(SKILLS_EXTENSION_ID)})`,
    );
  }
  return diagnostic(source, "mcp-error", `${id}: skills/list failed: ${printable(errorMessage(error))}`);
}

/**
 * Adds one page's skills to `found`, by URI; `false` when `maxSkills` cut the listing there.
 */
function addPage(
  source: SourceContext,
  skills: readonly unknown[],
  found: Map<string, Listed>,
  diagnostics: Diagnostic[],
): boolean {
  for (const raw of skills) {
    const entry = checkEntry(source, raw, diagnostics);
    if (!entry) continue;
    if (found.size >= source.maxSkills && !found.has(entry.uri)) {
      diagnostics.push(
        diagnostic(
          source,
          "mcp-skill-limit",
          `${source.id}: skills/list holds more than ${source.maxSkills} skills (maxSkills); the rest of the listing was left out`,
        ),
      );
      return false;
    }
    found.set(entry.uri, entry);
  }
  return true;
}

/**
 * The skills the server lists, page by page, each checked; what cuts the listing short (a
 * timeout, a server without skills, a bad answer, a limit) is a diagnostic, and the skills
 * listed before it are kept.
 */
export async function listSkills(
  source: SourceContext,
  signal: AbortSignal | undefined,
  deadline: number,
  diagnostics: Diagnostic[],
): Promise<Listed[]> {
  const { id } = source;
  const found = new Map<string, Listed>();
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page === source.maxPages) {
      diagnostics.push(
        diagnostic(
          source,
          "mcp-page-limit",
          `${id}: skills/list still had more pages after ${source.maxPages}; the rest of the listing was left out`,
        ),
      );
      break;
    }
    let result: Record<string, unknown>;
    try {
      result = await call(source, "skills/list", cursor === undefined ? {} : { cursor }, signal, deadline);
    } catch (error) {
      if (SkillError.isInstance(error) && error.code === "ABORTED") throw error;
      diagnostics.push(listFailure(source, error, found.size));
      break;
    }
    const skills = result.skills;
    if (!Array.isArray(skills)) {
      diagnostics.push(
        diagnostic(
          source,
          "mcp-invalid-response",
          `${id}: skills/list answered without a \`skills\` list (found ${quote(result)})`,
        ),
      );
      break;
    }
    if (!addPage(source, skills, found, diagnostics)) break;
    const next = result.nextCursor;
    if (next === undefined || next === null || next === "") break;
    if (typeof next !== "string" || seen.has(next)) {
      diagnostics.push(
        diagnostic(
          source,
          "mcp-invalid-response",
          `${id}: skills/list gave ${typeof next === "string" ? "a cursor it had already given" : "a nextCursor that is not a string"} (${quote(next)}); the listing stops there`,
        ),
      );
      break;
    }
    seen.add(next);
    cursor = next;
  }
  return [...found.values()];
}

/** The resources a listing gives, and the bytes it says they hold (sizes that are whole numbers >= 0). */
function listedResources(raw: readonly unknown[]): { resources: ListedResource[]; bytes: number } {
  const resources: ListedResource[] = [];
  let bytes = 0;
  for (const r of raw) {
    if (isMapping(r) && typeof r.size === "number" && Number.isSafeInteger(r.size) && r.size >= 0) {
      bytes += r.size;
    }
    if (!isMapping(r) || typeof r.uri !== "string") continue;
    resources.push({
      uri: r.uri,
      ...(typeof r.digest === "string" ? { digest: r.digest } : {}),
      ...(typeof r.size === "number" && Number.isSafeInteger(r.size) && r.size >= 0 ? { size: r.size } : {}),
    });
  }
  return { resources, bytes };
}

/**
 * The folder of a listed `skill://…/SKILL.md` URI and its last segment (empty when a segment of
 * the folder is empty, `.` or `..`), or `undefined` when the URI is no skill's.
 */
function skillFolder(uri: unknown): { folder: string; last: string } | undefined {
  if (
    typeof uri !== "string" ||
    !uri.startsWith(SKILL_SCHEME) ||
    !uri.endsWith(`/${SKILL_FILE}`) ||
    uri.includes("?") ||
    uri.includes("#")
  ) {
    return undefined;
  }
  const folder = uri.slice(0, -`/${SKILL_FILE}`.length);
  const segments = folder.slice(SKILL_SCHEME.length).split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) return { folder, last: "" };
  return { folder, last: segments[segments.length - 1] ?? "" };
}

/** One entry of a listing, checked; `undefined` (with a diagnostic) when it is no skill. */
function checkEntry(source: SourceContext, raw: unknown, diagnostics: Diagnostic[]): Listed | undefined {
  const { id } = source;
  const uri = isMapping(raw) ? raw.uri : undefined;
  const at = skillFolder(uri);
  if (typeof uri !== "string" || at === undefined) {
    diagnostics.push(
      diagnostic(
        source,
        "mcp-invalid-entry",
        `${id}: skills/list holds an entry without a skill://…/SKILL.md uri (found ${quote(raw)}); it was skipped`,
      ),
    );
    return undefined;
  }
  if (at.last === "") {
    diagnostics.push(
      diagnostic(
        source,
        "mcp-invalid-entry",
        `${id}: skill URI ${quote(uri)} has no skill folder (expected skill://<name>/SKILL.md or skill://<prefix>/<name>/SKILL.md); it was skipped`,
        uri,
      ),
    );
    return undefined;
  }
  const record = raw as Record<string, unknown>;
  const listed = {
    uri,
    folder: at.folder,
    segment: decodeSegment(at.last),
    ...(isMapping(record.frontmatter) ? { frontmatter: record.frontmatter } : {}),
  };
  if (record.resources === "dynamic") return { ...listed, dynamic: true };
  if (!Array.isArray(record.resources)) {
    diagnostics.push(
      diagnostic(
        source,
        "mcp-no-resources",
        `${id}: ${uri} is listed without resources: its SKILL.md cannot be checked against a digest and it has no bundled files`,
        uri,
      ),
    );
    return listed;
  }
  const { resources, bytes } = listedResources(record.resources);
  // A host accepts skills up to SEP-2640's limits; past them the skill fails alone.
  const over =
    record.resources.length > SKILL_LIMITS.files
      ? `${record.resources.length} resources (at most ${SKILL_LIMITS.files} are accepted)`
      : bytes > SKILL_LIMITS.bytes
        ? `${bytes} bytes of resources (at most ${SKILL_LIMITS.bytes} are accepted)`
        : undefined;
  if (over !== undefined) {
    const refused = new SkillError("LIMIT_EXCEEDED", `${id}: ${uri} lists ${over}`, { path: uri });
    return { ...listed, resources, refused };
  }
  return { ...listed, resources };
}
