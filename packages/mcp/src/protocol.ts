import { createHash } from "node:crypto";
import { z } from "zod/v4";

/** Extension id of SEP-2640, the key a server declares under `capabilities.extensions`. */
export const SKILLS_EXTENSION_ID = "io.modelcontextprotocol/skills";

export const SKILL_SCHEME = "skill://";
export { SKILL_FILE } from "@skill/core";
/** MIME type of a folder in a `resources/directory/read` answer. */
export const DIRECTORY_MIME_TYPE = "inode/directory";

/** JSON-RPC error codes the extension answers with. */
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const REQUEST_TIMEOUT = -32001;

/** One file of a skill as `skills/list` and `skills/get` describe it. */
export interface SkillResourceRef {
  /** `skill://<prefix>/<name>/<file>`, each path segment percent-encoded. */
  readonly uri: string;
  /** `sha256:` and 64 lowercase hex digits: the hash of the bytes `resources/read` serves. */
  readonly digest: string;
  readonly mimeType?: string;
  /** Bytes served. */
  readonly size?: number;
}

/** One skill of a `skills/list` page, and the `skill` of a `skills/get` answer. */
export interface SkillEntry {
  /** `skill://<prefix>/<name>/SKILL.md`. */
  readonly uri: string;
  /** Every frontmatter field of the SKILL.md, as parsed. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** Every file of the skill, SKILL.md first, then the bundled files sorted by path. */
  readonly resources?: readonly SkillResourceRef[];
}

// Result schemas stay loose: answers are checked by hand so that a bad one is reported
// with the server's URI and what was found, and fails only the skill concerned.
export const anyResult = z.looseObject({});

const cursorParams = z.looseObject({ cursor: z.string().optional() }).optional();
const uriParams = z.looseObject({ uri: z.string() });

export const SkillsListRequest = z.object({ method: z.literal("skills/list"), params: cursorParams });
export const SkillsGetRequest = z.object({ method: z.literal("skills/get"), params: uriParams });
export const DirectoryReadRequest = z.object({
  method: z.literal("resources/directory/read"),
  params: z.looseObject({ uri: z.string(), cursor: z.string().optional() }),
});
export const ResourcesListRequest = z.object({ method: z.literal("resources/list"), params: cursorParams });
export const ResourcesReadRequest = z.object({ method: z.literal("resources/read"), params: uriParams });

export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

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
