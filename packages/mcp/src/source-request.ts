import { abortError, errorMessage, isMapping, printable, quote, SkillError } from "@skill/core";
import { anyResult, REQUEST_TIMEOUT } from "./protocol.js";

/**
 * What `mcpSource` needs of an MCP client: the SDK's `Client` (`@modelcontextprotocol/client`,
 * 2.x) fits, and so does anything that sends a JSON-RPC request and resolves with its result.
 * `resultSchema` is a loose zod object schema (the SDK validates against it); answers are
 * checked here.
 */
export interface McpClientLike {
  request(
    request: { method: string; params?: Record<string, unknown> },
    resultSchema: unknown,
    options?: { signal?: AbortSignal; timeout?: number },
  ): Promise<unknown>;
}

/** One `mcpSource`, as every request, listing and read of it sees it: its options, checked. */
export interface SourceContext {
  readonly client: McpClientLike;
  /** The source id, named in every message and diagnostic. */
  readonly id: string;
  /** `mcp:<label>`, the origin of every entry. */
  readonly origin: string;
  /** The deadline of one server, in ms. */
  readonly timeout: number;
  readonly maxPages: number;
  readonly maxSkills: number;
  /** Fields left out of every skill (`allowed-tools`, unless trusted). */
  readonly ignoreFields: readonly string[];
  /** The source's own signal, combined with each scan's or read's. */
  readonly signal: AbortSignal | undefined;
}

export function errorCode(error: unknown): number | undefined {
  const code = isMapping(error) || error instanceof Error ? (error as { code?: unknown }).code : undefined;
  // The SDK's v2 line reports its own timeout as an SdkError with a string code.
  if (code === "REQUEST_TIMEOUT") return REQUEST_TIMEOUT;
  return typeof code === "number" ? code : undefined;
}

/** Thrown inside a scan when the server's deadline passed. */
export class DeadlinePassed extends Error {}

export function combine(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (!a) return b;
  if (!b) return a;
  return AbortSignal.any([a, b]);
}

/**
 * One request, answered before `deadline` (ms since the epoch) or failed as a timeout,
 * whether or not the client honours its own timeout and signal.
 */
export async function call(
  source: SourceContext,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal | undefined,
  deadline: number = Date.now() + source.timeout,
): Promise<Record<string, unknown>> {
  const { id } = source;
  if (signal?.aborted) throw abortError(signal, `${method} on ${id} was aborted`);
  const left = deadline - Date.now();
  if (left <= 0) throw new DeadlinePassed();
  const expiry = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      expiry.abort();
      reject(new DeadlinePassed());
    }, left);
  });
  // AbortSignal.any, not a listener on `signal` per request: many reads in flight on one
  // signal would otherwise trip Node's MaxListenersExceededWarning.
  const both = signal ? AbortSignal.any([signal, expiry.signal]) : expiry.signal;
  const cancelled = signal
    ? new Promise<never>((_, reject) => {
        both.addEventListener("abort", () => reject(abortError(signal, `${method} on ${id} was aborted`)), {
          once: true,
        });
      })
    : undefined;
  // Raced below; once the race is over, a later abort must not be an unhandled rejection.
  cancelled?.catch(() => undefined);
  expired.catch(() => undefined);
  try {
    const result: unknown = await Promise.race([
      source.client.request({ method, params }, anyResult, { timeout: left, signal: both }),
      expired,
      ...(cancelled ? [cancelled] : []),
    ]);
    if (!isMapping(result)) {
      throw new SkillError(
        "REMOTE_ERROR",
        `Remote fetch failed: ${method} on ${id} answered ${quote(result)}`,
      );
    }
    return result;
  } catch (error) {
    if (signal?.aborted) throw abortError(signal, `${method} on ${id} was aborted`);
    if (expiry.signal.aborted || errorCode(error) === REQUEST_TIMEOUT) throw new DeadlinePassed();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** The bytes of one resource, by `resources/read`: its text, or its base64 blob decoded. */
export async function readResource(
  source: SourceContext,
  uri: string,
  signal: AbortSignal | undefined,
  deadline?: number,
): Promise<Uint8Array> {
  const { id } = source;
  let result: Record<string, unknown>;
  try {
    result = await call(source, "resources/read", { uri }, signal, deadline);
  } catch (error) {
    if (SkillError.isInstance(error)) throw error;
    const reason =
      error instanceof DeadlinePassed || errorCode(error) === REQUEST_TIMEOUT
        ? `no answer within ${source.timeout} ms`
        : printable(errorMessage(error));
    throw new SkillError("REMOTE_ERROR", `Remote fetch failed: resources/read ${uri} on ${id}: ${reason}`, {
      path: uri,
      cause: error,
    });
  }
  const contents = Array.isArray(result.contents) ? result.contents.filter(isMapping) : [];
  const content = contents.find((c) => c.uri === uri) ?? (contents.length === 1 ? contents[0] : undefined);
  if (content && typeof content.text === "string") return new TextEncoder().encode(content.text);
  if (content && typeof content.blob === "string") return new Uint8Array(Buffer.from(content.blob, "base64"));
  throw new SkillError(
    "REMOTE_ERROR",
    `Remote fetch failed: resources/read ${uri} on ${id} answered without text or blob contents for it (found ${quote(result)})`,
    { path: uri },
  );
}
