import { printable, quote, SkillError } from "@skill/core";
import { packBase } from "./cache-dir.js";
import type { IndexState } from "./cache-state.js";
import type { FetchLike } from "./http.js";
import { indexVersion, shapeProblem } from "./manifest.js";
import type { Settings } from "./options.js";
import { request } from "./request.js";
import { errorText } from "./text.js";

/** Where a site publishes its index, in the order they are tried. */
export const WELL_KNOWN = ["/.well-known/agent-skills/index.json", "/.well-known/skills/index.json"] as const;

/**
 * The index URLs to try for what the caller gave, in order: a URL whose path ends in `.json` is
 * the index itself; a site (empty path) tries the well-known paths; anything else is a pack base
 * whose index is `<base>index.json`.
 *
 * @throws SkillError `INVALID_URL`
 */
export function indexCandidates(url: string): string[] {
  const base = packBase(url);
  const parsed = new URL(url);
  if (/\.json$/i.test(parsed.pathname)) {
    parsed.hash = "";
    return [parsed.href];
  }
  if (base.pathname === "/") return WELL_KNOWN.map((path) => new URL(path, base).href);
  return [new URL("index.json", base).href];
}

export type IndexAnswer =
  | { readonly url: string; readonly notModified: true }
  | {
      readonly url: string;
      readonly notModified: false;
      readonly text: string;
      readonly value: unknown;
      readonly etag?: string;
      readonly lastModified?: string;
    };

/** Parses an index body: JSON with a `skills` list. @throws SkillError `REMOTE_ERROR` */
export function parseIndexText(text: string, indexUrl: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    // The parser's message quotes the body: it is the server's text, so it is escaped too.
    throw new SkillError(
      "REMOTE_ERROR",
      `Remote fetch failed: ${indexUrl} is not valid JSON (${printable(errorText(error))}); found ${quote(text.trim(), 80)}`,
      { url: indexUrl, cause: error },
    );
  }
  const problem = shapeProblem(value);
  if (problem !== undefined) {
    throw new SkillError(
      "REMOTE_ERROR",
      `Remote fetch failed: ${indexUrl} is not a skill index: ${problem}`,
      {
        url: indexUrl,
      },
    );
  }
  // An unknown `$schema` is an invalid index like any other: refused here, so a cached copy is served.
  indexVersion(value as Record<string, unknown>, indexUrl);
  return value;
}

/**
 * Fetches the first index that answers (a 404 moves on to the next candidate), conditionally
 * when `previous` holds validators for it and `haveCopy` says its body is kept.
 */
export async function fetchIndex(
  candidates: readonly string[],
  fetch: FetchLike,
  settings: Settings,
  signal: AbortSignal | undefined,
  previous: IndexState | undefined,
  haveCopy: boolean,
): Promise<IndexAnswer> {
  for (let i = 0; ; i++) {
    const indexUrl = candidates[i] as string;
    const headers: Record<string, string> = { accept: "application/json" };
    const known = haveCopy && previous?.url === indexUrl ? previous : undefined;
    if (known?.etag) headers["if-none-match"] = known.etag;
    if (known?.lastModified) headers["if-modified-since"] = known.lastModified;
    const chunks: Uint8Array[] = [];
    try {
      const result = await request(indexUrl, {
        fetch,
        origin: new URL(indexUrl).origin,
        signal,
        timeoutMs: settings.timeoutMs,
        deadlineMs: settings.requestTimeoutMs,
        maxBytes: settings.maxFileBytes,
        headers,
        credentials: settings.headers,
        conditional: known !== undefined && Object.keys(headers).length > 1,
        open: async () => (chunk) => {
          chunks.push(chunk);
        },
      });
      if (result.notModified) return { url: indexUrl, notModified: true };
      const text = Buffer.concat(chunks).toString("utf8");
      return {
        url: indexUrl,
        notModified: false,
        text,
        value: parseIndexText(text, indexUrl),
        ...(result.etag === undefined ? {} : { etag: result.etag }),
        ...(result.lastModified === undefined ? {} : { lastModified: result.lastModified }),
      };
    } catch (error) {
      const notFound = SkillError.isInstance(error) && error.code === "HTTP_ERROR" && error.status === 404;
      if (!notFound) throw error;
      if (i + 1 >= candidates.length) {
        if (candidates.length === 1) throw error;
        throw new SkillError(
          "HTTP_ERROR",
          `${error.message}; no skill index at ${candidates.slice(0, -1).join(" nor ")} either`,
          { url: indexUrl, status: 404, cause: error },
        );
      }
    }
  }
}
