import { abortError, SkillError } from "@skill/core";
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

/** The `ABORTED` error of a fetch (`url`, when given, is named); a `SkillError` reason is thrown as it is. */
export function fetchAborted(signal: AbortSignal, url?: string): SkillError {
  if (SkillError.isInstance(signal.reason)) return signal.reason;
  return abortError(
    signal,
    url ? `Remote fetch was aborted: ${url}` : "Remote fetch was aborted",
    url === undefined ? {} : { url },
  );
}

/** A `REMOTE_ERROR` of a fetch. */
export function remoteError(message: string, url: string, cause?: unknown): SkillError {
  return new SkillError("REMOTE_ERROR", `Remote fetch failed: ${message}`, {
    url,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Lets go of a response we will not read, so its connection is released. */
export function discard(response: FetchResponseLike): void {
  const body = response.body as { cancel?: () => Promise<void>; destroy?: () => void } | null;
  try {
    if (typeof body?.destroy === "function") body.destroy();
    else if (typeof body?.cancel === "function") body.cancel().catch(() => {});
  } catch {
    // Releasing is best effort; the abort that follows closes the connection anyway.
  }
}
