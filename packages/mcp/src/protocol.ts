import {
  DIRECTORY_MIME_TYPE,
  SKILL_LIMITS,
  SKILLS_EXTENSION_ID,
  type SkillCacheScope,
} from "@modelcontextprotocol/server/ext/skills";
import { z } from "zod/v4";

export type { SkillCacheScope };
/**
 * Wire constants of SEP-2640 as the SDK's v2 line ships them: the extension id a server declares
 * under `capabilities.extensions`, the MIME type of a folder, the per-skill limits (512
 * resources, 16 MiB).
 */
export { DIRECTORY_MIME_TYPE, SKILL_LIMITS, SKILLS_EXTENSION_ID };

export const SKILL_SCHEME = "skill://";
export { SKILL_FILE } from "@skill/core";

/** JSON-RPC error codes the extension answers with. */
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export const REQUEST_TIMEOUT = -32001;

/** One file of a skill as `skills/list` and `skills/get` describe it (SEP-2640 as accepted). */
export interface SkillResourceRef {
  /** `skill://[<prefix>/]<name>/<file>`, each path segment percent-encoded. */
  readonly uri: string;
  /** `sha256:` and 64 lowercase hex digits: the hash of the bytes `resources/read` serves. */
  readonly digest: string;
  /** Bytes served. */
  readonly size: number;
}

/** One skill of a `skills/list` page, and the `skill` of a `skills/get` answer. */
export interface SkillEntry {
  /** `skill://[<prefix>/]<name>/SKILL.md`. */
  readonly uri: string;
  /** Every frontmatter field of the SKILL.md, as parsed. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /**
   * Every file of the skill, SKILL.md first, then the bundled files sorted by path; or
   * `"dynamic"` when the server cannot list them (never content-bindable).
   */
  readonly resources: readonly SkillResourceRef[] | "dynamic";
}

// Result schemas stay loose: answers are checked by hand so that a bad one is reported
// with the server's URI and what was found, and fails only the skill concerned.
export const anyResult = z.looseObject({});

/** Params of `skills/list`, as the SDK's 3-argument `setRequestHandler` takes them (for a server of a test's own). */
export const SkillsListParams = z.looseObject({ cursor: z.string().optional() }).optional();

/** Percent-encodes each `/`-separated segment of a relative path. */
export function encodePath(path: string): string {
  return path.split("/").map(encodeURIComponent).join("/");
}

/** Decodes one URI path segment; a malformed escape is kept as written. */
export function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const MIME_TYPES: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  py: "text/x-python",
  sh: "text/x-shellscript",
  js: "text/javascript",
  mjs: "text/javascript",
  cjs: "text/javascript",
  ts: "text/typescript",
  html: "text/html",
  css: "text/css",
  xml: "application/xml",
  csv: "text/csv",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  pdf: "application/pdf",
  zip: "application/zip",
};

/** MIME type by extension; unknown extensions are `text/plain` for UTF-8 text, else octet-stream. */
export function mimeTypeOf(path: string, text: boolean): string {
  const dot = path.lastIndexOf(".");
  const ext = dot > path.lastIndexOf("/") ? path.slice(dot + 1).toLowerCase() : "";
  return MIME_TYPES[ext] ?? (text ? "text/plain" : "application/octet-stream");
}
