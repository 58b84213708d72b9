import { printable } from "@skill/core";
import { type PullProgress, pull as pullPack, redactUrl } from "@skill/remote";
import { type Context, remoteOptions } from "../../context.js";
import { type Progress, progressLine } from "../../progress.js";
import {
  cachedCapabilities,
  capabilityChanges,
  readSnapshot,
  snapshotFile,
  writeSnapshot,
} from "./capabilities.js";
import { failing, type PackOutcome, printOutcome, pullJson, type Tally } from "./report.js";

/** Exit code of a pull stopped by Ctrl-C (128 + SIGINT), as shells report it. */
const INTERRUPTED = 130;

/**
 * `skill pull URL…`: downloads remote packs into the cache, with a progress bar on a terminal
 * that moves with every file and every skill. Exits 1 when a pack fails, yields no skill, or
 * skips an entry (each named, with why, on its own line). Ctrl-C aborts the pull in flight,
 * which removes its staging folders and lets go of the pack's lock before the CLI exits (130);
 * a second Ctrl-C ends the process at once. URLs are printed without credentials.
 */
export async function run(
  ctx: Context,
  urls: readonly string[],
  opts: { readonly quiet?: boolean } = {},
): Promise<number> {
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort();
  process.once("SIGINT", onSigint);
  try {
    return await pullAll(ctx, urls, interrupt.signal, opts.quiet === true);
  } finally {
    process.removeListener("SIGINT", onSigint);
  }
}

async function pullAll(
  ctx: Context,
  urls: readonly string[],
  signal: AbortSignal,
  quiet = false,
): Promise<number> {
  const { out } = ctx;
  const c = out.color;
  const results: PackOutcome[] = [];
  const showBar = !out.json;
  for (const url of urls) {
    if (signal.aborted) break;
    results.push(await pullOne(ctx, url, signal, showBar));
  }
  const failed = results.filter(failing).length;
  const exit = signal.aborted ? INTERRUPTED : failed > 0 ? 1 : 0;
  if (out.json) {
    out.data(pullJson(ctx, results));
    return exit;
  }
  for (const outcome of results) printOutcome(ctx, outcome, quiet);
  if (signal.aborted)
    out.error(`${c.red("✗")} interrupted: the pull in flight was stopped, the cache left as it was`);
  out.line(`cache: ${ctx.cacheDir}`);
  if (out.verbose) for (const w of ctx.warnings) out.error(`warning: ${printable(w)}`);
  return exit;
}

/** Pulls one pack, with what its skills could do before and after; an error is its outcome. */
async function pullOne(
  ctx: Context,
  url: string,
  signal: AbortSignal,
  showBar: boolean,
): Promise<PackOutcome> {
  const tally: Tally = { files: 0, bytes: 0, unchanged: 0, skills: 0, skillTotal: 0 };
  const bar = progressOf(url, showBar);
  const onProgress = (event: PullProgress) => {
    if (event.type === "index") {
      tally.skillTotal = event.skills;
      bar.total(event.files);
      bar.update(0, { detail: "", skills: 0, skillTotal: event.skills });
    } else if (event.type === "file") {
      if (!event.cached) {
        tally.files++;
        tally.bytes += event.bytes;
      }
      bar.increment({ detail: printable(`${event.skill}/${event.file}`).slice(0, 60) });
    } else if (event.type === "skill") {
      if (event.status === "unchanged") tally.unchanged++;
      if (event.status !== "removed") tally.skills++;
      bar.note({ skills: Math.min(tally.skills, tally.skillTotal), detail: printable(event.name) });
    }
  };
  try {
    // What each cached skill could do before, so that an update shows what power it gained:
    // remembered from the last pull, or (the first time) audited from the cache.
    const snapshot = snapshotFile(ctx, url);
    const before = (await readSnapshot(snapshot)) ?? (await cachedCapabilities(ctx, url));
    const result = await pullPack(url, { ...remoteOptions(ctx), onProgress, signal });
    const now = new Map(before);
    const capabilities = await capabilityChanges(result, before, now);
    await writeSnapshot(snapshot, now);
    return { url, result, tally, capabilities };
  } catch (error) {
    const e = error as { code?: string; message: string };
    return { url, tally, error: { code: e.code ?? "REMOTE_ERROR", message: e.message } };
  } finally {
    bar.stop();
  }
}

/** The progress line of one pack: files, skills, and the file or skill at hand. */
function progressOf(url: string, enabled: boolean): Progress {
  const format = `${printable(redactUrl(url))}  {bar}  {value}/{total} files  {skills}/{skillTotal} skills  {detail}`;
  return progressLine(format, { enabled });
}
