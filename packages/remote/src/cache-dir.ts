import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { quote, SkillError } from "@skill/core";
import { redactUrl } from "./redact.js";

const SLUG_MAX = 60;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/;

/**
 * The pack's base URL: http(s) only, no credentials, query or fragment, and exactly one
 * trailing slash, so `https://x/skills` and `https://x/skills/` are the same pack.
 *
 * @throws SkillError `INVALID_URL`
 */
export function packBase(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SkillError(
      "INVALID_URL",
      `Invalid URL: ${quote(redactUrl(url))} (expected an http:// or https:// address of a skill pack)`,
      // No cause: the URL parser's error carries the URL as typed, credentials and all.
      { url: redactUrl(url) },
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new SkillError(
      "INVALID_URL",
      `Invalid URL: ${quote(redactUrl(url))} (expected an http:// or https:// address of a skill pack, found ${quote(parsed.protocol)})`,
      { url: redactUrl(url) },
    );
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw new SkillError(
      "INVALID_URL",
      `Invalid URL: ${quote(redactUrl(url))} holds credentials; leave them out of the URL and pass them in the pull's \`headers\`, keyed by origin (${quote(parsed.origin)})`,
      { url: redactUrl(url) },
    );
  }
  parsed.search = "";
  parsed.hash = "";
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, "")}/`;
  return parsed;
}

/**
 * The cache folder name of a pack URL: a readable slug of host and path (`a-z 0-9 . _ -`, at
 * most 60 characters) and 12 hex digits of the SHA-256 of the normalized URL. Distinct URLs get
 * distinct names; URLs that differ only by trailing slashes, a query or a fragment are the same
 * pack and get the same name.
 *
 * @throws SkillError `INVALID_URL`
 * @example
 * urlToDirName("https://example.com/.well-known/skills/"); // "example.com-.well-known-skills-3f2a…"
 */
export function urlToDirName(url: string): string {
  const base = packBase(url);
  const hash = createHash("sha256").update(base.href).digest("hex").slice(0, 12);
  let slug = `${base.host}${base.pathname}`
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .slice(0, SLUG_MAX)
    .replace(/^[-.]+|[-.]+$/g, "");
  if (slug === "") slug = "pack";
  if (WINDOWS_DEVICE.test(slug)) slug = `_${slug}`;
  return `${slug}-${hash}`;
}

/**
 * Where packs are cached by default: `$XDG_CACHE_HOME/skill/remote` when that is an absolute
 * path, else `~/.cache/skill/remote` (home from `env.HOME`, else `os.homedir()`).
 */
export function defaultCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, "skill", "remote");
  return join(env.HOME || homedir(), ".cache", "skill", "remote");
}
