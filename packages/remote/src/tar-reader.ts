import { createReadStream } from "node:fs";
import { createGunzip, gunzipSync } from "node:zlib";
import { errnoOf, quote, SkillError } from "@skill/core";
import { errorText } from "./text.js";
import { type ArchiveSource, MAX_BACKLOG, refuse, type Unpacker } from "./unpacker.js";

/** The first failure of a tar read, kept as events arrive. */
interface Failure {
  error?: unknown;
}

function fail(state: Failure, error: unknown): void {
  state.error ??= error;
}

/** What an entry that is not a regular file is, for a message. */
function kindOf(type: string): string {
  if (type === "CharacterDevice" || type === "BlockDevice") return "a device";
  if (type === "FIFO") return "a FIFO";
  return `an entry of type ${quote(type)}`;
}

/** One tar entry: a folder or link is noted, a regular file streamed to the unpacker, anything else refused. */
function readEntry(entry: import("tar").ReadEntry, u: Unpacker, state: Failure): void {
  const type = entry.type;
  if (type === "Directory") {
    u.entry(entry.path, true);
    entry.resume();
    return;
  }
  if (type === "SymbolicLink" || type === "Link") {
    const path = u.entry(entry.path, false);
    u.links.push({ path, target: entry.linkpath ?? "", hard: type === "Link" });
    entry.resume();
    return;
  }
  if (type !== "File" && type !== "OldFile" && type !== "ContiguousFile") {
    u.entry(entry.path, false);
    throw refuse("UNSAFE_PATH", `entry ${quote(entry.path)} is ${kindOf(type)}`);
  }
  const path = u.entry(entry.path, false);
  if (path === "") throw refuse("UNSAFE_PATH", `entry ${quote(entry.path)} is a file at the root's own name`);
  const out = u.start(path, entry.size, ((entry.mode ?? 0) & 0o111) !== 0);
  const guarded = (step: () => void) => () => {
    if (state.error) return;
    try {
      step();
    } catch (error) {
      fail(state, error);
    }
  };
  entry.on("data", (chunk: Buffer) => guarded(() => out.write(chunk))());
  entry.on(
    "end",
    guarded(() => out.end()),
  );
}

/** A tar parser feeding `u`, noting its first failure in `state`. */
async function tarParser(u: Unpacker, state: Failure) {
  const { Parser } = await import("tar");
  const parser = new Parser({ strict: true });
  parser.on("error", (error: unknown) => fail(state, error));
  parser.on("warn", (code: string, message: string | Error) => {
    fail(state, refuse("INTEGRITY_ERROR", `it is not a valid tar archive (${code}: ${errorText(message)})`));
  });
  parser.on("entry", (entry: import("tar").ReadEntry) => {
    if (state.error) {
      entry.resume();
      return;
    }
    try {
      readEntry(entry, u, state);
    } catch (error) {
      fail(state, error);
      entry.resume();
    }
  });
  return parser;
}

/** Unpacks a `.tar.gz` into `u`, inflating as it goes: past the unpack limit, it stops. */
export async function unpackTar(
  source: ArchiveSource,
  u: Unpacker,
  signal: AbortSignal | undefined,
): Promise<void> {
  const state: Failure = {};
  const parser = await tarParser(u, state);
  const limit = u.limits.maxBytes + (u.limits.maxFiles + 8) * 3 * 512 + 1024 * 1024;
  let inflated = 0;
  let tail = Buffer.alloc(0);
  const chunks = gunzipped(source, limit, u);
  try {
    for await (const chunk of chunks) {
      if (signal?.aborted) throw signal.reason;
      inflated += chunk.byteLength;
      if (inflated > limit) u.count(u.limits.maxBytes + 1);
      tail = Buffer.concat([tail, chunk.subarray(-1024)]).subarray(-1024);
      parser.write(chunk);
      if (u.backlog > MAX_BACKLOG) await u.settle();
      if (state.error || u.failure) break;
    }
    // A tar ends with two zero blocks; without them it was cut short, perhaps between entries.
    if (!state.error && (inflated % 512 !== 0 || tail.length < 1024 || tail.some((b) => b !== 0))) {
      fail(state, refuse("INTEGRITY_ERROR", "it is cut short (no end-of-archive blocks)"));
    }
    if (!state.error) await new Promise<void>((resolve) => parser.end(resolve));
  } catch (error) {
    if (SkillError.isInstance(error) || signal?.aborted) fail(state, error);
    else fail(state, refuse("INTEGRITY_ERROR", `it is not a valid .tar.gz (${errorText(error)})`));
  } finally {
    await chunks.return(undefined);
  }
  if (state.error) throw state.error;
}

/** A gzip held in memory up to this size is inflated in one synchronous call (no stream, no thread). */
const INFLATE_AT_ONCE = 64 * 1024;
const INFLATED_CHUNK = 64 * 1024;

/**
 * The inflated bytes of a `.tar.gz`, in chunks: a small one in memory at once (never past
 * `limit`: past it the unpack limit is reported), anything else as a stream.
 */
async function* gunzipped(source: ArchiveSource, limit: number, u: Unpacker): AsyncGenerator<Buffer> {
  if (typeof source !== "string" && source.byteLength <= INFLATE_AT_ONCE) {
    let whole: Buffer;
    try {
      whole = gunzipSync(source, { maxOutputLength: limit + 1 });
    } catch (error) {
      if (errnoOf(error) === "ERR_BUFFER_TOO_LARGE") u.count(u.limits.maxBytes + 1);
      throw error;
    }
    for (let at = 0; at < whole.byteLength; at += INFLATED_CHUNK)
      yield whole.subarray(at, at + INFLATED_CHUNK);
    return;
  }
  const gunzip = createGunzip();
  const stream = typeof source === "string" ? createReadStream(source).pipe(gunzip) : gunzip;
  if (typeof source !== "string") gunzip.end(source);
  try {
    yield* stream as AsyncIterable<Buffer>;
  } finally {
    stream.destroy();
  }
}
