import { createHash } from "node:crypto";
import { join } from "node:path";
import { quote, redactUrl, SkillError, skillCacheHome } from "@skill/core";

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
 * The query that is part of what a URL names: an index URL's (a path ending in `.json` is
 * requested as given, so `index.json?team=a` and `index.json?team=b` are two indexes), and
 * nothing for a site or a pack base (their index URL is derived, without the query).
 */
function namedQuery(url: string): string {
  const parsed = new URL(url);
  return /\.json$/i.test(parsed.pathname) ? parsed.search : "";
}

function dirName(base: URL, key: string): string {
  const hash = createHash("sha256").update(key).digest("hex").slice(0, 12);
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
 * The cache folder name of a pack URL: a readable slug of host and path (`a-z 0-9 . _ -`, at
 * most 60 characters) and 12 hex digits of the SHA-256 of the normalized URL. Distinct packs get
 * distinct names: an index URL (a path ending in `.json`) is keyed with its query, so
 * `index.json?team=a` and `index.json?team=b` never share a folder. URLs that differ only by
 * trailing slashes or a fragment (or, for a site or pack base, a query, which is not sent) are
 * the same pack and get the same name.
 *
 * @throws SkillError `INVALID_URL`
 * @example
 * urlToDirName("https://example.com/.well-known/skills/"); // "example.com-.well-known-skills-3f2a…"
 */
export function urlToDirName(url: string): string {
  const base = packBase(url);
  return dirName(base, `${base.href}${namedQuery(url)}`);
}

/**
 * The folder name caches written before index queries were part of the key used, when it
 * differs from {@link urlToDirName} (an index URL with a query); such a copy stays readable.
 */
export function legacyDirName(url: string): string | undefined {
  const base = packBase(url);
  return namedQuery(url) === "" ? undefined : dirName(base, base.href);
}

/**
 * Where packs are cached by default: `$XDG_CACHE_HOME/skill/remote` when that is an absolute
 * path, else `~/.cache/skill/remote` (home from `env.HOME`, else `os.homedir()`).
 */
export function defaultCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return join(skillCacheHome(env), "remote");
}
