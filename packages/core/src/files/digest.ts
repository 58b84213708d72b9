import { createHash } from "node:crypto";

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/**
 * The digest @skill/* writes for a file's bytes: `sha256:` and 64 lower-case hex digits. A
 * string is hashed as its UTF-8 bytes.
 *
 * @example
 * sha256Digest(""); // "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
 */
export function sha256Digest(bytes: Uint8Array | string): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/**
 * Whether `value` is a digest of exactly the shape {@link sha256Digest} returns: `sha256:` and
 * 64 lower-case hex digits, nothing around them.
 *
 * @example
 * isDigest(head.digest); // false for "SHA256:…", an upper-case hex digit or a missing prefix
 */
export function isDigest(value: unknown): value is string {
  return typeof value === "string" && DIGEST.test(value);
}
