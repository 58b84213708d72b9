import { formatBytes, printable, quote, SkillError } from "@skill/core";
import {
  BLOCK_BYTES,
  type Budget,
  discard,
  type FetchResponseLike,
  fetchAborted,
  type RequestOptions,
  type RequestResult,
  remoteError,
} from "./http.js";
import { follow } from "./redirects.js";
import { errorText } from "./text.js";

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

/** Where one request is, and what it received: what its failure is told from. */
interface Progress {
  /** The URL of the hop being asked (after redirects, the one that answered). */
  current: string;
  /** A response arrived (a timeout is then a stall, not "no response"). */
  answered: boolean;
  received: number;
  /** The Content-Length of an unencoded body. */
  expected: number | undefined;
}

/** The error of an answer that is not a 2xx (or is a 206), quoting the start of its body. */
async function statusError(response: FetchResponseLike, current: string): Promise<SkillError> {
  const status = response.status;
  const snippet = await readSnippet(response.body, 200);
  // The reason phrase is the server's text: escaped, and cut, before it reaches a terminal.
  const text = response.statusText ? ` ${printable([...response.statusText].slice(0, 80).join(""))}` : "";
  return new SkillError(
    "HTTP_ERROR",
    `HTTP error: ${status}${text} from ${current}${snippet ? ` (body: ${quote(snippet, 80)})` : ""}`,
    { url: current, status },
  );
}

/** Counts `bytes` against the pull's budget. */
function charge(budget: Budget, bytes: number, current: string): void {
  budget.used += bytes;
  if (budget.used > budget.limit) {
    budget.exhausted = true;
    throw totalError(current, budget.limit, "took the pull past");
  }
}

/** Streams a 2xx body to where `options.open` says, under the body's and the pull's limits. */
async function receive(
  response: FetchResponseLike,
  options: RequestOptions,
  progress: Progress,
  timer: NodeJS.Timeout,
): Promise<void> {
  const { budget, maxBytes } = options;
  const { current } = progress;
  const limitName = options.maxBytesOption ?? "maxFileBytes";
  const encoding = (response.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
  const expected = encoding === "identity" ? parseLength(response.headers.get("content-length")) : undefined;
  progress.expected = expected;
  if (expected !== undefined && expected > maxBytes) {
    throw limitError(current, `announces ${formatBytes(expected)}`, maxBytes, limitName);
  }
  const write = await options.open();
  if (response.body) {
    for await (const chunk of response.body) {
      timer.refresh();
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      progress.received += bytes.byteLength;
      if (progress.received > maxBytes) {
        throw limitError(current, `sent more than ${formatBytes(maxBytes)}`, maxBytes, limitName);
      }
      if (budget) charge(budget, bytes.byteLength, current);
      await write(bytes);
    }
  }
  const received = progress.received;
  // A file costs a block on disk however small it is: 10,000 one-byte files are not 10 KB.
  if (budget && received < BLOCK_BYTES) charge(budget, BLOCK_BYTES - received, current);
  if (expected !== undefined && received !== expected) {
    throw new SkillError(
      "INTEGRITY_ERROR",
      `Remote fetch failed: ${current} sent ${received} bytes, but its Content-Length is ${expected}`,
      { url: current },
    );
  }
}

/** What a request that threw failed of: an abort, a timeout, a short body, or the fetch itself. */
function requestError(
  error: unknown,
  url: string,
  options: RequestOptions,
  progress: Progress,
  timedOut: "idle" | "deadline" | undefined,
): SkillError {
  const { signal } = options;
  const { current, received, expected } = progress;
  if (signal?.aborted) return fetchAborted(signal, url);
  if (SkillError.isInstance(error)) return error;
  if (timedOut === "deadline") {
    return remoteError(
      `${current} did not finish within ${options.deadlineMs} ms (${formatBytes(received)} received; requestTimeoutMs)`,
      current,
      error,
    );
  }
  if (timedOut === "idle") {
    const waiting = progress.answered ? `stalled after ${formatBytes(received)}` : "no response";
    return remoteError(`${current} timed out after ${options.timeoutMs} ms (${waiting})`, current, error);
  }
  if (expected !== undefined && received < expected) {
    return new SkillError(
      "INTEGRITY_ERROR",
      `Remote fetch failed: ${current} ended after ${received} of ${expected} bytes (Content-Length): ${errorText(error)}`,
      { url: current, cause: error },
    );
  }
  return remoteError(`${current} (${errorText(error)})`, current, error);
}

/**
 * One GET: follows same-origin redirects (at most 5, loops refused), enforces the timeout
 * between chunks, the per-body and per-pull byte limits while streaming, and Content-Length.
 *
 * @throws SkillError `HTTP_ERROR`, `REMOTE_ERROR`, `LIMIT_EXCEEDED`, `INTEGRITY_ERROR`, `ABORTED`
 */
export async function request(url: string, options: RequestOptions): Promise<RequestResult> {
  const { signal, timeoutMs, budget } = options;
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
  const progress: Progress = { current: url, answered: false, received: 0, expected: undefined };
  let done = false;
  try {
    const response = await follow(url, options, fetchSignal, progress, timer);
    const status = response.status;
    if (status === 304 && options.conditional) {
      discard(response);
      done = true;
      return { notModified: true };
    }
    if (status < 200 || status > 299 || status === 206) throw await statusError(response, progress.current);
    await receive(response, options, progress, timer);
    done = true;
    const etag = response.headers.get("etag");
    const lastModified = response.headers.get("last-modified");
    const contentType = response.headers.get("content-type");
    return {
      notModified: false,
      bytes: progress.received,
      url: progress.current,
      ...(contentType ? { contentType } : {}),
      ...(etag ? { etag } : {}),
      ...(lastModified ? { lastModified } : {}),
    };
  } catch (error) {
    throw requestError(error, url, options, progress, timedOut);
  } finally {
    clearTimeout(timer);
    clearTimeout(deadline);
    if (!done) controller.abort();
  }
}
