import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { auditSkill, type Capabilities, type CapabilityDiff, diffCapabilities } from "@skill/audit";
import { compareCodeUnits, printable } from "@skill/core";
import { scanSkillFiles } from "@skill/discovery";
import { type PullProgress, type PullResult, pull as pullPack, redactUrl, urlToDirName } from "@skill/remote";
import cliProgress from "cli-progress";
import { formatCapabilityDiff } from "../../capability-diff.js";
import { type Context, remoteOptions } from "../../context.js";
import { displayPath, formatBytes, plural } from "../../output.js";

const NO_CAPABILITIES: Capabilities = {
  tools: [],
  executables: [],
  commands: [],
  hosts: [],
  env: [],
  hooks: false,
};

/**
 * Where the CLI keeps what each cached skill of a pack could do at its last pull: a dot-file
 * of the cache's own (remote leaves dot-entries of the cache folder alone), so a warm pull
 * audits only the skills it changed instead of every cached one.
 */
function snapshotFile(ctx: Context, url: string): string | undefined {
  try {
    return join(ctx.cacheDir, ".capabilities", `${urlToDirName(url)}.json`);
  } catch {
    return undefined; // an invalid URL has no cache; the pull says why
  }
}

async function readSnapshot(file: string | undefined): Promise<Map<string, Capabilities> | undefined> {
  if (!file) return undefined;
  try {
    const value = JSON.parse(await readFile(file, "utf8")) as { version?: unknown; skills?: unknown };
    if (value.version !== 1 || typeof value.skills !== "object" || value.skills === null) return undefined;
    return new Map(Object.entries(value.skills as Record<string, Capabilities>));
  } catch {
    return undefined; // none yet, or unreadable: audit the cache once instead
  }
}

async function writeSnapshot(
  file: string | undefined,
  skills: ReadonlyMap<string, Capabilities>,
): Promise<void> {
  if (!file) return;
  const sorted = Object.fromEntries([...skills].sort(([a], [b]) => compareCodeUnits(a, b)));
  const temp = `${file}.${process.pid}.tmp`;
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(temp, `${JSON.stringify({ version: 1, skills: sorted })}\n`);
    await rename(temp, file);
  } catch {
    await rm(temp, { force: true }).catch(() => {}); // a missing snapshot costs one full audit next time
  }
}

/** What each skill cached for `url` can do now, by skill name: the "before" of a pull. */
async function cachedCapabilities(ctx: Context, url: string): Promise<Map<string, Capabilities>> {
  const before = new Map<string, Capabilities>();
  let packDir: string;
  try {
    packDir = join(ctx.cacheDir, urlToDirName(url));
  } catch {
    return before; // an invalid URL has no cache; the pull says why
  }
  // The cache holds one folder per skill (`<pack>/<name>/SKILL.md`), beside dot-folders of its own.
  const files = await scanSkillFiles(packDir, {
    maxDepth: 1,
    skipDotDirs: true,
    followSymlinks: false,
  }).catch(() => []);
  for (const file of files) {
    const dir = dirname(file);
    if (resolve(dir) === resolve(packDir)) continue; // a SKILL.md at the top is no cached skill
    const audit = await auditSkill(dir).catch(() => undefined);
    if (audit) before.set(basename(dir), audit.capabilities);
  }
  return before;
}

/** The capability diff of every skill a pull added or changed, by name (sorted, unchanged ones left out). */
async function capabilityChanges(
  result: PullResult,
  before: ReadonlyMap<string, Capabilities>,
  now: Map<string, Capabilities>,
): Promise<{ name: string; added: boolean; diff: CapabilityDiff }[]> {
  const out: { name: string; added: boolean; diff: CapabilityDiff }[] = [];
  for (const change of result.changed) {
    if (change.after === undefined) {
      now.delete(change.name);
      continue;
    }
    const audit = await auditSkill(dirname(change.after)).catch(() => undefined);
    if (!audit) {
      now.delete(change.name);
      continue;
    }
    now.set(change.name, audit.capabilities);
    const cachedName = change.before === undefined ? undefined : dirname(change.before).split(/[\\/]/).pop();
    const previous = before.get(change.name) ?? (cachedName ? before.get(cachedName) : undefined);
    const diff = diffCapabilities(previous ?? NO_CAPABILITIES, audit.capabilities);
    if (diff.changed) out.push({ name: change.name, added: previous === undefined, diff });
  }
  return out.sort((a, b) => compareCodeUnits(a.name, b.name));
}

interface Tally {
  files: number;
  bytes: number;
  unchanged: number;
  skills: number;
  skillTotal: number;
}

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

/** New skills a pull lists with what they can do, one by one; more are summed up. */
const MAX_NEW_LISTED = 10;

/** `412 new skills: 38 run code (executables or commands), 12 have hooks, 96 name hosts; skill audit lists each`. */
function newSkillsSummary(gained: readonly CapabilityDiff["gained"][]): string {
  const code = gained.filter((g) => g.executables.length > 0 || g.commands.length > 0).length;
  const hooks = gained.filter((g) => g.hooks).length;
  const hosts = gained.filter((g) => g.hosts.length > 0).length;
  const tools = gained.filter((g) => g.tools.length > 0).length;
  const parts = [
    code > 0 ? `${code} can run code (executables or commands)` : "",
    hooks > 0 ? `${plural(hooks, "skill")} with hooks` : "",
    hosts > 0 ? `${hosts} name hosts` : "",
    tools > 0 ? `${tools} ask for tools` : "",
  ].filter((p) => p !== "");
  return `${plural(gained.length, "new skill")}${parts.length > 0 ? `: ${parts.join(", ")}` : ""} (--verbose lists each; skill audit tells more)`;
}

async function pullAll(
  ctx: Context,
  urls: readonly string[],
  signal: AbortSignal,
  quiet = false,
): Promise<number> {
  const { out } = ctx;
  const c = out.color;
  const results: {
    url: string;
    result?: PullResult;
    tally: Tally;
    error?: { code: string; message: string };
    capabilities?: { name: string; added: boolean; diff: CapabilityDiff }[];
  }[] = [];
  const showBar = out.isTTY && !out.json;
  for (const url of urls) {
    if (signal.aborted) break;
    const tally: Tally = { files: 0, bytes: 0, unchanged: 0, skills: 0, skillTotal: 0 };
    const shown = printable(redactUrl(url));
    const bar = showBar
      ? new cliProgress.SingleBar(
          {
            format: `${shown}  {bar}  {value}/{total} files  {skills}/{skillTotal} skills  {detail}`,
            hideCursor: true,
            clearOnComplete: true,
          },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
    const onProgress = (event: PullProgress) => {
      if (event.type === "index") {
        tally.skillTotal = event.skills;
        bar?.start(event.files, 0, { detail: "", skills: 0, skillTotal: event.skills });
      } else if (event.type === "file") {
        if (!event.cached) {
          tally.files++;
          tally.bytes += event.bytes;
        }
        bar?.increment(1, { detail: printable(`${event.skill}/${event.file}`).slice(0, 60) });
      } else if (event.type === "skill") {
        if (event.status === "unchanged") tally.unchanged++;
        if (event.status !== "removed") tally.skills++;
        bar?.update({ skills: Math.min(tally.skills, tally.skillTotal), detail: printable(event.name) });
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
      results.push({ url, result, tally, capabilities });
    } catch (error) {
      const e = error as { code?: string; message: string };
      results.push({ url, tally, error: { code: e.code ?? "REMOTE_ERROR", message: e.message } });
    } finally {
      bar?.stop();
    }
  }

  const failing = (r: (typeof results)[number]) =>
    r.error !== undefined ||
    r.result === undefined ||
    r.result.files.length === 0 ||
    r.result.skipped.length > 0;
  const failed = results.filter(failing).length;
  const exit = signal.aborted ? INTERRUPTED : failed > 0 ? 1 : 0;
  if (out.json) {
    out.data({
      cacheDir: ctx.cacheDir,
      packs: results.map(({ url, result, tally, error, capabilities }) =>
        error
          ? { url: redactUrl(url), error }
          : {
              url: redactUrl(url),
              ...result,
              ...(result ? { indexUrl: redactUrl(result.indexUrl) } : {}),
              downloaded: { files: tally.files, bytes: tally.bytes },
              capabilities: (capabilities ?? []).map(({ name, added, diff }) => ({
                name,
                added,
                gained: diff.gained,
                lost: diff.lost,
              })),
            },
      ),
      warnings: ctx.warnings,
    });
    return exit;
  }
  for (const { url, result, tally, error, capabilities } of results) {
    const shown = printable(redactUrl(url));
    if (error) {
      out.error(`${c.red("✗")} ${shown}: ${printable(error.message)}`);
      continue;
    }
    if (!result) continue;
    const parts = [plural(result.files.length, "skill")];
    if (tally.unchanged > 0) parts.push(`${tally.unchanged} unchanged`);
    if (result.skipped.length > 0) parts.push(c.yellow(`${result.skipped.length} skipped`));
    const transfer = `${plural(tally.files, "file")} downloaded (${formatBytes(tally.bytes)})`;
    const bad = result.files.length === 0 || result.skipped.length > 0;
    const mark = bad ? c.red("✗") : result.fromCache ? c.yellow("!") : c.green("✓");
    const how = result.fromCache
      ? ctx.offline
        ? "offline, the cached copy"
        : "unreachable, served the cached copy"
      : transfer;
    out.line(`${mark} ${shown}: ${parts.join(", ")}; ${how}`);
    if (result.indexUrl !== url && !quiet) out.line(`    index: ${printable(redactUrl(result.indexUrl))}`);
    for (const change of result.changed) {
      if (!change.restored) continue;
      const files = change.restored.map((f) => printable(f));
      out.line(
        `    ${c.yellow("!")} ${printable(change.name)}: restored ${files.slice(0, 5).join(", ")}${files.length > 5 ? `, and ${files.length - 5} more` : ""} (changed on disk since it was pulled)`,
      );
    }
    for (const s of result.skipped)
      out.error(`    ✗ ${printable(s.name)} (${s.code}): ${printable(s.reason)}`);
    if (result.files.length === 0 && result.skipped.length === 0) out.error(`    ✗ the pack lists no skill`);
    if (quiet) continue;
    // What updated skills gained is each worth a line; a first pull of a big pack is summed up.
    const all = capabilities ?? [];
    const fresh = all.filter((x) => x.added);
    const summed = fresh.length > MAX_NEW_LISTED && !out.verbose;
    for (const { name, added, diff } of summed ? all.filter((x) => !x.added) : all) {
      const [first, second] = formatCapabilityDiff(diff);
      const label = `${printable(name)}${added ? " (new)" : ""}`;
      out.line(`    ${c.bold(label)}: ${first ?? ""}`);
      if (second !== undefined) out.line(`    ${" ".repeat([...label].length)}  ${second}`);
    }
    if (summed) out.line(`    ${newSkillsSummary(fresh.map((x) => x.diff.gained))}`);
    if (out.verbose) for (const f of result.files) out.line(`    ${displayPath(f, ctx.cwd, ctx.home)}`);
  }
  if (signal.aborted)
    out.error(`${c.red("✗")} interrupted: the pull in flight was stopped, the cache left as it was`);
  out.line(`cache: ${ctx.cacheDir}`);
  if (out.verbose) for (const w of ctx.warnings) out.error(`warning: ${printable(w)}`);
  return exit;
}
