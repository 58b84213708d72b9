import { randomBytes } from "node:crypto";
import { lstat, readFile, unlink, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { errnoOf } from "@skill/core";
import { LOCK_FILE } from "./cache-state.js";
import { fetchAborted } from "./http.js";

/** A lock whose holder neither lives nor touched it for this long is taken over. */
const STALE_MS = 30_000;
const HEARTBEAT_MS = 5_000;
const POLL_MIN_MS = 25;
const POLL_MAX_MS = 500;

interface LockInfo {
  readonly raw: string;
  readonly mtimeMs: number;
  readonly pid?: number;
  readonly host?: string;
}

export interface PackLock {
  release(): Promise<void>;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(fetchAborted(signal as AbortSignal));
    }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

async function readLock(path: string): Promise<LockInfo | undefined> {
  try {
    const stats = await lstat(path);
    if (!stats.isFile()) return { raw: "", mtimeMs: 0 };
    const raw = await readFile(path, "utf8");
    let parsed: { pid?: unknown; host?: unknown } = {};
    try {
      parsed = JSON.parse(raw) as typeof parsed;
    } catch {
      // Being written right now, or garbage: only its age can tell.
    }
    return {
      raw,
      mtimeMs: stats.mtimeMs,
      ...(typeof parsed.pid === "number" ? { pid: parsed.pid } : {}),
      ...(typeof parsed.host === "string" ? { host: parsed.host } : {}),
    };
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return undefined;
    throw error;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoOf(error) === "EPERM";
  }
}

function isStale(info: LockInfo): boolean {
  if (Date.now() - info.mtimeMs > STALE_MS) return true;
  return info.pid !== undefined && info.host === hostname() && !alive(info.pid);
}

function same(a: LockInfo, b: LockInfo): boolean {
  return a.raw === b.raw && a.mtimeMs === b.mtimeMs;
}

/**
 * Removes a stale lock, unless someone else is already doing so or it changed since it was
 * judged stale. The `.break` guard (created exclusively) makes the check-then-unlink atomic
 * between processes, so a fresh lock is never removed by a late breaker. A guard left by a
 * breaker that died (its process is gone, or it is older than the stale age) is removed at once.
 * Returns false when a live breaker holds the guard: the caller waits before looking again.
 */
async function breakLock(path: string, stale: LockInfo): Promise<boolean> {
  const guard = `${path}.break`;
  const mine = JSON.stringify({ pid: process.pid, host: hostname() });
  try {
    await writeFile(guard, mine, { flag: "wx" });
  } catch (error) {
    if (errnoOf(error) !== "EEXIST") throw error;
    const other = await readLock(guard);
    if (!other) return true; // gone meanwhile: look again at once
    if (!isStale(other)) return false;
    // Only the guard we judged stale is removed, never one a new breaker just wrote.
    const now = await readLock(guard);
    if (now && same(now, other)) await unlink(guard).catch(() => {});
    return true;
  }
  try {
    const now = await readLock(path);
    if (now && same(now, stale)) await unlink(path).catch(() => {});
  } finally {
    await unlink(guard).catch(() => {});
  }
  return true;
}

/** The last turn queued for each lock path in this process: pulls here wait in line, not by polling. */
const turns = new Map<string, Promise<void>>();

/**
 * Waits for this process's earlier holders of `path` to let go; returns what lets the next one
 * go. Aborting while waiting gives up the place in line (the next one still waits for those
 * ahead).
 */
async function takeTurn(path: string, signal: AbortSignal | undefined): Promise<() => void> {
  const ahead = turns.get(path) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => {
    done = resolve;
  });
  const tail = ahead.then(() => mine);
  turns.set(path, tail);
  void tail.then(() => {
    if (turns.get(path) === tail) turns.delete(path);
  });
  if (signal?.aborted) {
    done();
    throw fetchAborted(signal);
  }
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      done();
      reject(fetchAborted(signal as AbortSignal));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    void ahead.then(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    });
  });
  return done;
}

/**
 * Takes the pack's lock file (created with O_EXCL), waiting while a live process holds it.
 * A lock left by a dead process on this host, or not refreshed for 30 s, is taken over. In one
 * process, callers queue for it in the order they asked.
 */
export async function acquireLock(packDir: string, signal?: AbortSignal): Promise<PackLock> {
  const path = join(packDir, LOCK_FILE);
  const letGo = await takeTurn(path, signal);
  try {
    return await acquireFile(path, signal, letGo);
  } catch (error) {
    letGo();
    throw error;
  }
}

async function acquireFile(
  path: string,
  signal: AbortSignal | undefined,
  letGo: () => void,
): Promise<PackLock> {
  const token = randomBytes(8).toString("hex");
  const body = JSON.stringify({ pid: process.pid, host: hostname(), token, since: new Date().toISOString() });
  let wait = POLL_MIN_MS;
  let quick = 0;
  for (;;) {
    if (signal?.aborted) throw fetchAborted(signal);
    try {
      await writeFile(path, body, { flag: "wx" });
      break;
    } catch (error) {
      if (errnoOf(error) !== "EEXIST") throw error;
    }
    const info = await readLock(path);
    // Retry at once after breaking a lock, but a few times only: never spin without sleeping.
    if (info && isStale(info) && (await breakLock(path, info)) && quick++ < 3) continue;
    quick = 0;
    await sleep(wait, signal);
    wait = Math.min(wait * 2, POLL_MAX_MS);
  }
  const heartbeat = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => {});
  }, HEARTBEAT_MS);
  heartbeat.unref();
  return {
    async release() {
      clearInterval(heartbeat);
      try {
        const info = await readLock(path).catch(() => undefined);
        if (info?.raw === body) await unlink(path).catch(() => {});
      } finally {
        letGo();
      }
    },
  };
}
