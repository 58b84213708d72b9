/** Longest skill name, in UTF-8 bytes (the spec allows 64 characters; the cache adds a prefix). */
export const MAX_NAME_BYTES = 128;
/** Longest path segment, in UTF-8 bytes (NAME_MAX on common filesystems). */
const MAX_SEGMENT_BYTES = 255;
/** Longest file path inside a skill, in UTF-8 bytes. */
const MAX_PATH_BYTES = 1024;
/** Most files one skill may list. */
export const MAX_FILES_PER_SKILL = 1000;

/**
 * Characters refused in names and file paths: separators, the Windows-reserved set, and the
 * URL characters that would change what is requested (`%` escapes, `?` queries, `#` fragments).
 */
const FORBIDDEN = new Set(["/", "\\", ":", "*", "?", '"', "<", ">", "|", "%", "#"]);
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i;

function segmentProblem(segment: string): string | undefined {
  if (segment === "") return "it has an empty segment";
  if (segment === "." || segment === "..") return `it has a "${segment}" segment`;
  for (const ch of segment) {
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return "it holds a control character";
    if (code >= 0xd800 && code <= 0xdfff) return "it is not valid Unicode";
    if (FORBIDDEN.has(ch)) {
      return ch === "%" ? `it holds "%" (percent-encoding is not allowed)` : `it holds ${JSON.stringify(ch)}`;
    }
  }
  if (segment.startsWith(" ") || segment.endsWith(" ") || segment.endsWith(".")) {
    return `${JSON.stringify(segment)} starts or ends with a space, or ends with a dot`;
  }
  if (WINDOWS_DEVICE.test(segment)) return `${JSON.stringify(segment)} is a reserved device name on Windows`;
  if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) return `a segment is over ${MAX_SEGMENT_BYTES} bytes`;
  return undefined;
}

/**
 * Why `name` cannot be a skill folder name, or `undefined` when it can: one path segment, no
 * separators, dots-only or dot-leading names (the cache keeps its own files under dot names),
 * control characters or URL-significant characters.
 */
export function nameProblem(name: string): string | undefined {
  if (name === "") return "it is empty";
  if (name === "." || name === "..") return `it is "${name}"`;
  const problem = segmentProblem(name);
  if (problem) return problem;
  if (name.startsWith(".")) return "it starts with a dot";
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) return `it is over ${MAX_NAME_BYTES} bytes`;
  return undefined;
}

/**
 * Why `file` cannot be a path inside a skill folder, or `undefined` when it can: relative,
 * `/`-separated, every segment a plain name (no `.`/`..`, no empty segment, no backslash, drive
 * letter, NUL or percent-escape).
 */
export function fileProblem(file: string): string | undefined {
  if (file === "") return "it is empty";
  if (file.startsWith("/")) return "it is an absolute path";
  if (Buffer.byteLength(file) > MAX_PATH_BYTES) return `it is over ${MAX_PATH_BYTES} bytes`;
  for (const segment of file.split("/")) {
    const problem = segmentProblem(segment);
    if (problem) return problem;
  }
  return undefined;
}

/** The key two names collide under on case-insensitive or normalizing filesystems. */
export function foldKey(path: string): string {
  return path.normalize("NFC").toLowerCase();
}
