import { abortError, formatBytes, printable, quote, SkillError } from "@skill/core";
import { errorText } from "./text.js";

/** Disk a file costs at least, whatever its size: one block (and an inode). */
export const BLOCK_BYTES = 4096;

/** What {@link FetchLike} is called with. */
export interface FetchInit {
  readonly signal?: AbortSignal;
  readonly headers?: Record<string, string>;
  /** Always `"manual"`: redirects are followed (same origin only) by the caller. */
  readonly redirect?: "manual";
}

/** The part of a fetch `Response` a pull reads (node-fetch's and the global `fetch`'s both fit). */
export interface FetchResponseLike {
  readonly status: number;
  readonly statusText?: string;
  /** The URL that answered; a fetch that followed redirects itself is checked against the origin. */
  readonly url?: string;
  readonly headers: { get(name: string): string | null };
  /** The body as chunks, read as they arrive. */
  readonly body: AsyncIterable<Uint8Array | string> | null;
}

/**
 * An HTTP client: node-fetch's `fetch`, the global `fetch`, or your own (a proxy, a test
 * double). It is the transport only: it must honour `signal` and should honour
 * `redirect: "manual"`. Credentials go in `PullOptions.headers`, which the pull applies per
 * origin on every hop; a fetch that adds them itself would send them wherever a hop leads.
 */
export type FetchLike = (url: string, init?: FetchInit) => Promise<FetchResponseLike>;

let nodeFetch: Promise<FetchLike> | undefined;

/** node-fetch, imported on first use: it is ESM-only, and a lazy import works from the CJS build too. */
export function defaultFetch(): Promise<FetchLike> {
  nodeFetch ??= import("node-fetch").then(
    (module) => module.default as unknown as FetchLike,
    (error: unknown) => {
      nodeFetch = undefined;
      throw new SkillError(
        "REMOTE_ERROR",
        `Remote fetch failed: cannot load node-fetch (${errorText(error)})`,
        {
          cause: error,
        },
      );
    },
  );
  return nodeFetch;
}

/** Bytes a whole pull may transfer (`maxTotalBytes`). Shared by every request of a pull. */
export interface Budget {
  used: number;
  readonly limit: number;
  exhausted?: boolean;
}

export interface RequestOptions {
  readonly fetch: FetchLike;
  /** Origin every hop must stay on; `undefined` (a digest-pinned artifact) lets redirects cross origins. */
  readonly origin: string | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Longest wait for a response, and between two chunks of its body. */
  readonly timeoutMs: number;
  /** Longest the whole request may take, body included, however steadily bytes trickle in. */
  readonly deadlineMs: number;
  /** Largest body, counted as it streams. */
  readonly maxBytes: number;
  /** The pull option `maxBytes` comes from, named when a body is over it (default `maxFileBytes`). */
  readonly maxBytesOption?: string;
  readonly budget?: Budget;
  /** Headers of this request (validators, `accept`), sent on every hop. */
  readonly headers?: Record<string, string>;
  /** The caller's headers by origin: each hop gets its own origin's, and no other's. */
  readonly credentials?: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** Conditional headers were sent: a 304 is an answer, not an error. */
  readonly conditional?: boolean;
  /** Called once the answer is a 2xx, before the first byte; returns where the bytes go. */
  readonly open: () => Promise<(chunk: Uint8Array) => Promise<void> | void>;
}

export type RequestResult =
  | { readonly notModified: true }
  | {
      readonly notModified: false;
      readonly bytes: number;
      readonly etag?: string;
      readonly lastModified?: string;
      readonly contentType?: string;
      /** The URL that finally answered, after redirects. */
      readonly url: string;
    };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/** The `ABORTED` error of a fetch (`url`, when given, is named); a `SkillError` reason is thrown as it is. */
export function fetchAborted(signal: AbortSignal, url?: string): SkillError {
  if (SkillError.isInstance(signal.reason)) return signal.reason;
  return abortError(
    signal,
    url ? `Remote fetch was aborted: ${url}` : "Remote fetch was aborted",
    url === undefined ? {} : { url },
  );
}

function remoteError(message: string, url: string, cause?: unknown): SkillError {
  return new SkillError("REMOTE_ERROR", `Remote fetch failed: ${message}`, {
    url,
    ...(cause === undefined ? {} : { cause }),
  });
}

function limitError(url: string, found: string, limit: number, option: string): SkillError {
  return new SkillError(
    "LIMIT_EXCEEDED",
    `Remote fetch failed: ${url} ${found}, over the limit of ${formatBytes(limit)} (${option})`,
    { url },
  );
}

function totalError(url: string, limit: number, what: string): SkillError {
  return new SkillError(
    "LIMIT_EXCEEDED",
    `Remote fetch failed: ${url} ${what} its limit of ${formatBytes(limit)} (maxTotalBytes)`,
    { url },
  );
}

/** Lets go of a response we will not read, so its connection is released. */
function discard(response: FetchResponseLike): void {
  const body = response.body as { cancel?: () => Promise<void>; destroy?: () => void } | null;
  try {
    if (typeof body?.destroy === "function") body.destroy();
    else if (typeof body?.cancel === "function") body.cancel().catch(() => {});
  } catch {
    // Releasing is best effort; the abort that follows closes the connection anyway.
  }
}

async function readSnippet(body: FetchResponseLike["body"], max: number): Promise<string> {
  if (!body) return "";
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.from(chunk);
      chunks.push(bytes);
      size += bytes.length;
      if (size >= max) break;
    }
  } catch {
    // What arrived before the failure is enough to quote.
  }
  return Buffer.concat(chunks).subarray(0, max).toString("utf8").replace(/\s+/g, " ").trim();
}

function parseLength(value: string | null): number | undefined {
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

/**
 * One GET: follows same-origin redirects (at most 5, loops refused), enforces the timeout
 * between chunks, the per-body and per-pull byte limits while streaming, and Content-Length.
 *
 * @throws SkillError `HTTP_ERROR`, `REMOTE_ERROR`, `LIMIT_EXCEEDED`, `INTEGRITY_ERROR`, `ABORTED`
 */
export async function request(url: string, options: RequestOptions): Promise<RequestResult> {
  const { signal, timeoutMs, budget } = options;
  const limitName = options.maxBytesOption ?? "maxFileBytes";
  if (signal?.aborted) throw fetchAborted(signal, url);
  if (budget?.exhausted) throw totalError(url, budget.limit, "was not fetched: the pull already reached");
  const controller = new AbortController();
  let timedOut: "idle" | "deadline" | undefined;
  const timer = setTimeout(() => {
    timedOut = "idle";
    controller.abort();
  }, timeoutMs);
  const deadline = setTimeout(() => {
    timedOut = "deadline";
    controller.abort();
  }, options.deadlineMs);
  // AbortSignal.any links without an event listener on the caller's signal, so a pull with many
  // requests in flight on one signal never trips MaxListenersExceededWarning.
  const fetchSignal = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;

  let current = url;
  let answered = false;
  let received = 0;
  let expected: number | undefined;
  let done = false;
  try {
    let response: FetchResponseLike;
    const visited = new Set([url]);
    for (let hops = 0; ; hops++) {
      // Credentials belong to an origin: this hop gets its own origin's headers, never the
      // first hop's. Redirects are followed here, one hop at a time, so each origin is known.
      const hopOrigin = new URL(current).origin;
      const own = options.credentials?.get(hopOrigin);
      const headers = own ? { ...own, ...options.headers } : options.headers;
      response = await options.fetch(current, {
        signal: fetchSignal,
        redirect: "manual",
        ...(headers ? { headers } : {}),
      });
      answered = true;
      timer.refresh();
      if (typeof response.url === "string" && response.url !== "" && response.url !== current) {
        const final = new URL(response.url);
        if (options.origin !== undefined && final.origin !== options.origin) {
          discard(response);
          throw remoteError(
            `${url} was redirected to ${quote(response.url)}, outside ${options.origin}`,
            url,
          );
        }
        if (own && final.origin !== hopOrigin) {
          // The fetch followed a redirect by itself, perhaps with this origin's credentials.
          discard(response);
          throw remoteError(
            `${current} was redirected to ${quote(response.url)} by the fetch itself, with the headers given for ${hopOrigin}; pass a fetch that honours redirect: "manual"`,
            url,
          );
        }
      }
      if (!REDIRECTS.has(response.status)) break;
      discard(response);
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
      if (options.origin !== undefined && next.origin !== options.origin) {
        throw remoteError(
          `${current} redirects to ${quote(next.href)}, outside ${options.origin} (only same-origin redirects are followed)`,
          current,
        );
      }
      if (visited.has(next.href))
        throw remoteError(`redirect loop: ${current} redirects back to ${next.href}`, url);
      if (hops + 1 > MAX_REDIRECTS)
        throw remoteError(`${url} redirects more than ${MAX_REDIRECTS} times`, url);
      visited.add(next.href);
      current = next.href;
    }

    const status = response.status;
    if (status === 304 && options.conditional) {
      discard(response);
      done = true;
      return { notModified: true };
    }
    if (status < 200 || status > 299 || status === 206) {
      const snippet = await readSnippet(response.body, 200);
      // The reason phrase is the server's text: escaped, and cut, before it reaches a terminal.
      const text = response.statusText ? ` ${printable([...response.statusText].slice(0, 80).join(""))}` : "";
      throw new SkillError(
        "HTTP_ERROR",
        `HTTP error: ${status}${text} from ${current}${snippet ? ` (body: ${quote(snippet, 80)})` : ""}`,
        { url: current, status },
      );
    }

    const encoding = (response.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
    expected = encoding === "identity" ? parseLength(response.headers.get("content-length")) : undefined;
    if (expected !== undefined && expected > options.maxBytes) {
      throw limitError(current, `announces ${formatBytes(expected)}`, options.maxBytes, limitName);
    }
    const write = await options.open();
    if (response.body) {
      for await (const chunk of response.body) {
        timer.refresh();
        const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
        received += bytes.byteLength;
        if (received > options.maxBytes) {
          throw limitError(
            current,
            `sent more than ${formatBytes(options.maxBytes)}`,
            options.maxBytes,
            limitName,
          );
        }
        if (budget) {
          budget.used += bytes.byteLength;
          if (budget.used > budget.limit) {
            budget.exhausted = true;
            throw totalError(current, budget.limit, "took the pull past");
          }
        }
        await write(bytes);
      }
    }
    if (budget && received < BLOCK_BYTES) {
      // A file costs a block on disk however small it is: 10,000 one-byte files are not 10 KB.
      budget.used += BLOCK_BYTES - received;
      if (budget.used > budget.limit) {
        budget.exhausted = true;
        throw totalError(current, budget.limit, "took the pull past");
      }
    }
    if (expected !== undefined && received !== expected) {
      throw new SkillError(
        "INTEGRITY_ERROR",
        `Remote fetch failed: ${current} sent ${received} bytes, but its Content-Length is ${expected}`,
        { url: current },
      );
    }
    done = true;
    const etag = response.headers.get("etag");
    const lastModified = response.headers.get("last-modified");
    const contentType = response.headers.get("content-type");
    return {
      notModified: false,
      bytes: received,
      url: current,
      ...(contentType ? { contentType } : {}),
      ...(etag ? { etag } : {}),
      ...(lastModified ? { lastModified } : {}),
    };
  } catch (error) {
    if (signal?.aborted) throw fetchAborted(signal, url);
    if (SkillError.isInstance(error)) throw error;
    if (timedOut === "deadline") {
      throw remoteError(
        `${current} did not finish within ${options.deadlineMs} ms (${formatBytes(received)} received; requestTimeoutMs)`,
        current,
        error,
      );
    }
    if (timedOut === "idle") {
      const waiting = answered ? `stalled after ${formatBytes(received)}` : "no response";
      throw remoteError(`${current} timed out after ${timeoutMs} ms (${waiting})`, current, error);
    }
    if (expected !== undefined && received < expected) {
      throw new SkillError(
        "INTEGRITY_ERROR",
        `Remote fetch failed: ${current} ended after ${received} of ${expected} bytes (Content-Length): ${errorText(error)}`,
        { url: current, cause: error },
      );
    }
    throw remoteError(`${current} (${errorText(error)})`, current, error);
  } finally {
    clearTimeout(timer);
    clearTimeout(deadline);
    if (!done) controller.abort();
  }
}
