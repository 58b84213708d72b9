// What `skill pull` says of each pack it pulled: a line with the outcome, what was restored or
// skipped, and what the skills gained; or all of it as JSON.
import type { CapabilityDiff } from "@skill/audit";
import { printable } from "@skill/core";
import { type PullResult, redactUrl } from "@skill/remote";
import { formatCapabilityDiff } from "../../capability-diff.js";
import type { Context } from "../../context.js";
import { displayPath, formatBytes, plural } from "../../output.js";
import type { CapabilityChange } from "./capabilities.js";

/** What was downloaded for one pack, counted as the pull reports its progress. */
export interface Tally {
  files: number;
  bytes: number;
  unchanged: number;
  skills: number;
  skillTotal: number;
}

/** The pull of one pack: its result, or the error that stopped it. */
export interface PackOutcome {
  readonly url: string;
  readonly result?: PullResult;
  readonly tally: Tally;
  readonly error?: { code: string; message: string };
  readonly capabilities?: readonly CapabilityChange[];
}

/** A pack that failed, yielded no skill or skipped an entry: the pull exits 1. */
export function failing(r: PackOutcome): boolean {
  return (
    r.error !== undefined ||
    r.result === undefined ||
    r.result.files.length === 0 ||
    r.result.skipped.length > 0
  );
}

/** What `skill pull --json` prints: each pack's result (URLs without credentials) or error, and the warnings. */
export function pullJson(ctx: Context, results: readonly PackOutcome[]) {
  return {
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
  };
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

/** The lines of one pack: its outcome, what was restored or skipped, and (unless `quiet`) what skills gained. */
export function printOutcome(ctx: Context, outcome: PackOutcome, quiet: boolean): void {
  const { out } = ctx;
  const c = out.color;
  const { url, result, tally, error, capabilities } = outcome;
  const shown = printable(redactUrl(url));
  if (error) {
    out.error(`${c.red("✗")} ${shown}: ${printable(error.message)}`);
    return;
  }
  if (!result) return;
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
  for (const s of result.skipped) out.error(`    ✗ ${printable(s.name)} (${s.code}): ${printable(s.reason)}`);
  if (result.files.length === 0 && result.skipped.length === 0) out.error(`    ✗ the pack lists no skill`);
  if (quiet) return;
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
