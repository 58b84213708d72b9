import { quote, SkillError } from "@skill/core";
import { discard, type FetchResponseLike, type RequestOptions, remoteError } from "./http.js";

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/**
 * A response that answered the fetch from another URL (a fetch that followed a redirect by
 * itself) must stay on `origin`, and must not have carried `hopOrigin`'s credentials away.
 */
function checkAnsweringUrl(
  response: FetchResponseLike,
  url: string,
  current: string,
  hopOrigin: string,
  credentialed: boolean,
  origin: string | undefined,
): void {
  if (typeof response.url !== "string" || response.url === "" || response.url === current) return;
  const final = new URL(response.url);
  if (origin !== undefined && final.origin !== origin) {
    discard(response);
    throw remoteError(`${url} was redirected to ${quote(response.url)}, outside ${origin}`, url);
  }
  if (credentialed && final.origin !== hopOrigin) {
    // The fetch followed a redirect by itself, perhaps with this origin's credentials.
    discard(response);
    throw remoteError(
      `${current} was redirected to ${quote(response.url)} by the fetch itself, with the headers given for ${hopOrigin}; pass a fetch that honours redirect: "manual"`,
      url,
    );
  }
}

/** Where a redirect from `current` leads: an http(s) URL without fragment, on `origin` when given. */
function redirectTarget(response: FetchResponseLike, current: string, origin: string | undefined): string {
  const location = response.headers.get("location");
  if (!location) {
    throw new SkillError(
      "HTTP_ERROR",
      `HTTP error: ${response.status} redirect without a Location header from ${current}`,
      { url: current, status: response.status },
    );
  }
  let next: URL;
  try {
    next = new URL(location, current);
  } catch (error) {
    throw remoteError(`${current} redirects to an invalid URL ${quote(location)}`, current, error);
  }
  next.hash = "";
  if (next.protocol !== "http:" && next.protocol !== "https:") {
    throw remoteError(`${current} redirects to ${quote(next.href)}, which is not http(s)`, current);
  }
  if (origin !== undefined && next.origin !== origin) {
    throw remoteError(
      `${current} redirects to ${quote(next.href)}, outside ${origin} (only same-origin redirects are followed)`,
      current,
    );
  }
  return next.href;
}

/**
 * Asks `url`, following redirects one hop at a time (at most 5, loops refused, same origin only
 * unless `options.origin` is `undefined`): the final response. `progress.current` is the hop
 * being asked.
 */
export async function follow(
  url: string,
  options: RequestOptions,
  signal: AbortSignal,
  progress: { current: string; answered: boolean },
  timer: NodeJS.Timeout,
): Promise<FetchResponseLike> {
  const visited = new Set([url]);
  for (let hops = 0; ; hops++) {
    const current = progress.current;
    // Credentials belong to an origin: this hop gets its own origin's headers, never the
    // first hop's. Redirects are followed here, one hop at a time, so each origin is known.
    const hopOrigin = new URL(current).origin;
    const own = options.credentials?.get(hopOrigin);
    const headers = own ? { ...own, ...options.headers } : options.headers;
    const response = await options.fetch(current, {
      signal,
      redirect: "manual",
      ...(headers ? { headers } : {}),
    });
    progress.answered = true;
    timer.refresh();
    checkAnsweringUrl(response, url, current, hopOrigin, own !== undefined, options.origin);
    if (!REDIRECTS.has(response.status)) return response;
    discard(response);
    const next = redirectTarget(response, current, options.origin);
    if (visited.has(next)) throw remoteError(`redirect loop: ${current} redirects back to ${next}`, url);
    if (hops + 1 > MAX_REDIRECTS) throw remoteError(`${url} redirects more than ${MAX_REDIRECTS} times`, url);
    visited.add(next);
    progress.current = next;
  }
}
