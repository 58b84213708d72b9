import { type LoadReport, printable, type SkillMetadata } from "@skill/core";
import {
  type ClassifiedShadow,
  classifyShadowed,
  isClaudeCodeDisabled,
  isExternalDisabled,
} from "@skill/discovery";
import type { Context } from "../../context.js";
import { cut, cutStart, displayPath, fitWidth, plural, width, widthUpTo } from "../../output.js";
import { createService, explicitMcpFailed } from "../../service.js";

/** `project:/abs/dir/.agents` → `project:.agents` (paths shown relative to cwd or home). */
function sourceLabel(id: string | undefined, ctx: Context): string {
  if (!id) return "";
  const at = id.indexOf(":");
  const rest = id.slice(at + 1);
  return rest.startsWith("/") ? `${id.slice(0, at)}:${displayPath(rest, ctx.cwd, ctx.home) || "."}` : id;
}

const GAP = "  ";
/** Columns from which a list that does not fit keeps its LOCATION column, shrunk. */
const WIDE = 120;
/**
 * How the columns give way when a line would be too wide, in order: [column, narrowest].
 * A long source id (an MCP server's command line) gives way to 24 cells first; the
 * description keeps 40 cells while the location shrinks (cut from the left, keeping the
 * file), then gives way to 20; the source and the name shrink last.
 */
const SHRINK: readonly (readonly [number, number])[] = [
  [2, 24],
  [1, 40],
  [3, 20],
  [1, 20],
  [2, 12],
  [3, 16],
  [0, 16],
];

/**
 * Lays the list out in `columns` terminal columns (string width: CJK and emoji count two).
 * When the natural widths do not fit, columns give way as {@link SHRINK} says; a terminal
 * narrower than the floors gets lines cut at its edge. The header is the first line. `cells`
 * are the widths of `rows`, each counted up to the terminal's width: the time is the rows',
 * however long their descriptions.
 */
function fitTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  cells: readonly (readonly number[])[],
  columns: number,
): { name: string; rest: string }[] {
  const widths = header.map((title, i) => cells.reduce((w, row) => Math.max(w, row[i] ?? 0), width(title)));
  let over = widths.reduce((a, b) => a + b, 0) + GAP.length * (widths.length - 1) - columns;
  // A line too wide gives the name a third of the terminal at most, the description the rest:
  // one long name must not leave every description a few words.
  const nameCap = Math.max(16, Math.floor(columns / 3));
  if (over > 0 && (widths[0] ?? 0) > nameCap) {
    over -= (widths[0] ?? 0) - nameCap;
    widths[0] = nameCap;
  }
  for (const [i, floor] of SHRINK) {
    if (over <= 0) break;
    const take = Math.min(Math.max(0, (widths[i] ?? 0) - floor), over);
    widths[i] = (widths[i] ?? 0) - take;
    over -= take;
  }
  const fitCell = (cell: string, i: number) => {
    const w = widths[i] ?? 0;
    const text = i === 3 ? cutStart(cell, w) : fitWidth(cell, w);
    return i === widths.length - 1 ? text : text + " ".repeat(Math.max(0, w - width(text)));
  };
  return [header, ...rows].map((row) => {
    const name = fitCell(row[0] ?? "", 0);
    const rest = `${GAP}${row
      .slice(1)
      .map((cell, i) => fitCell(cell, i + 1))
      .join(GAP)}`.trimEnd();
    return { name, rest: fitWidth(rest, columns - width(name)) };
  });
}

/**
 * Variables opencode reads that switch off skill folders: the first the `.claude` and `.agents`
 * folders, the other two the `.claude` folders only (as opencode 1.18.33 does).
 */
const DISABLE_VARIABLES = [
  "OPENCODE_DISABLE_EXTERNAL_SKILLS",
  "OPENCODE_DISABLE_CLAUDE_CODE_SKILLS",
  "OPENCODE_DISABLE_CLAUDE_CODE",
] as const;

/**
 * One line saying which variable keeps whole skill folders out, when one does (the default and
 * opencode presets honour them): otherwise hundreds of skills vanish without a word.
 */
export function disabledFoldersNote(ctx: Context): string | undefined {
  if ((ctx.preset !== "default" && ctx.preset !== "opencode") || !isClaudeCodeDisabled(ctx.env))
    return undefined;
  const set = DISABLE_VARIABLES.filter((name) => ctx.env[name] !== undefined && ctx.env[name] !== "");
  const folders = isExternalDisabled(ctx.env)
    ? "the .claude and .agents skill folders are"
    : "the .claude skill folders are";
  return `skill: note: ${set.map((n) => `${n}=${ctx.env[n]}`).join(", ")} is set, so ${folders} not read (unset it, or pass --preset agents to read them anyway)`;
}

/** Warnings of a scan that stopped on purpose. */
const BOUNDS: ReadonlySet<string> = new Set(["link-to-ancestor", "scan-truncated"]);

/** A shadowed pair for --verbose: `kept replaces dropped`, the copy inside a parent said so. */
function shadowLine(s: ClassifiedShadow, ctx: Context): string {
  const at = (location: string) => displayPath(location, ctx.cwd, ctx.home);
  const parent = s.nested && `, inside its parent '${s.nested.parent}'`;
  const line =
    s.nested === undefined
      ? `shadowed ${s.name}: ${at(s.kept)} replaces ${at(s.dropped)}`
      : s.nested.inside === s.kept
        ? `nested   ${s.name}: ${at(s.kept)}${parent}, replaces ${at(s.dropped)}`
        : `nested   ${s.name}: ${at(s.kept)} replaces ${at(s.dropped)}${parent}`;
  return `  ${printable(line)}`;
}

/** What `skill list` found: the skills the agent sees, and what it does not and why. */
interface Listing {
  readonly visible: readonly SkillMetadata[];
  /** Names of the skills the agent's permissions deny it. */
  readonly hidden: readonly string[];
  readonly shadowed: readonly ClassifiedShadow[];
  /** How many of the shadowed are a nested skill's copy inside its parent. */
  readonly nested: number;
  readonly failed: LoadReport["failed"];
  /** What the sources reported (unreadable folders, missing paths, packs served from cache…). */
  readonly warnings: LoadReport["diagnostics"];
}

/** `skill list`: what this agent sees from here, with shadowed and failed skills summarised. */
export async function run(ctx: Context): Promise<number> {
  const service = createService(ctx);
  const report = await service.discoverAndLoad();
  const disabled = disabledFoldersNote(ctx);
  if (disabled) ctx.out.error(printable(disabled));
  explicitMcpFailed(ctx, report);
  const all = service.all();
  // A nested skill installed with its parent is found twice: not a shadow worth a warning.
  const shadowed = classifyShadowed(report.shadowed, all);
  const visible = service.all(ctx.agent);
  const seen = new Set(visible);
  const listing: Listing = {
    visible,
    hidden: all.filter((s) => !seen.has(s)).map((s) => s.name),
    shadowed,
    nested: shadowed.filter((s) => s.nested !== undefined).length,
    failed: report.failed,
    warnings: report.diagnostics.filter((d) => d.source !== undefined && d.severity === "warning"),
  };
  // Where the scan stopped on purpose (a link to / or home, a folder bound): said even without
  // --verbose, since a checkout arranged it and skills may be missing because of it.
  for (const d of listing.warnings) if (BOUNDS.has(d.code)) ctx.out.error(printable(d.message));
  if (ctx.out.json) {
    ctx.out.data(listingJson(ctx, listing));
    return 0;
  }
  printTable(ctx, visible);
  printSummary(ctx, listing);
  return 0;
}

function listingJson(ctx: Context, listing: Listing) {
  return {
    agent: ctx.agent.name,
    skills: listing.visible.map((s) => ({
      name: s.name,
      description: s.description,
      source: s.source,
      location: s.location,
    })),
    hidden: listing.hidden,
    shadowed: listing.shadowed,
    failed: listing.failed.map((f) => ({ path: f.path, code: f.error.code, message: f.error.message })),
    warnings: listing.warnings.map((d) => ({
      code: d.code,
      message: d.message,
      path: d.path,
      source: d.source,
    })),
  };
}

/** A cell's text on one line, uncut: whitespace collapsed, control characters escaped. */
const flat = (text: string) => cut(text, Number.POSITIVE_INFINITY);

/**
 * {@link flat} of as much of `text` as a cell `columns` wide can show, and more than that when
 * there is more (so the cell still ends in `…`): a description of pages costs a line's worth.
 */
function flatHead(text: string, columns: number): string {
  const room = columns + 1;
  if (room === Number.POSITIVE_INFINITY || text.length <= 4 * room) return flat(text);
  const head = flat(text.slice(0, 4 * room));
  // Mostly spaces or marks that take no column: the whole text, then.
  return widthUpTo(head, room) >= room ? head : flat(text);
}

/**
 * The visible skills: on a terminal a table fitted to it; in a pipe, as gh does, a line per
 * skill `name<TAB>description<TAB>location` with no header and nothing cut.
 */
function printTable(ctx: Context, visible: readonly SkillMetadata[]): void {
  const { out } = ctx;
  if (visible.length === 0) {
    const none = `No skills visible to agent '${ctx.agent.name}' from ${ctx.cwd}.`;
    if (out.isTTY) out.line(none);
    else out.error(printable(none));
  } else if (out.isTTY) printFitted(ctx, visible);
  // The description's spacing is collapsed; a name or path keeps every character, a tab or a
  // line break in it escaped (`\u0009`), so each line stays three fields.
  else
    out.line(
      visible.map((s) => `${printable(s.name)}\t${flat(s.description)}\t${printable(s.location)}`).join("\n"),
    );
}

/** The table of visible skills, fitted to the terminal. */
function printFitted(ctx: Context, visible: readonly SkillMetadata[]): void {
  const { out } = ctx;
  const c = out.color;
  // A handful of sources label every row: each is worked out once.
  const labels = new Map<string | undefined, string>();
  const labelOf = (id: string | undefined) => {
    let label = labels.get(id);
    if (label === undefined) {
      label = sourceLabel(id, ctx);
      labels.set(id, label);
    }
    return label;
  };
  const rows = visible.map((s) => [
    printable(s.name),
    flatHead(s.description, out.width),
    labelOf(s.source),
    displayPath(s.location, ctx.cwd, ctx.home),
  ]);
  // No cell shows more than the terminal's width: a cell is measured that far.
  const cells = rows.map((row) => row.map((cell) => widthUpTo(cell, out.width)));
  const headers = ["NAME", "DESCRIPTION", "SOURCE", "LOCATION"];
  // On a terminal narrower than the table, the location goes first (as gh drops columns):
  // a description a person can read beats `…mation/SKILL.md`. --verbose keeps it.
  const natural = Math.max(
    headers.reduce((n, title) => n + width(title) + GAP.length, 0),
    ...cells.map((row) => row.reduce((n, w) => n + w + GAP.length, 0)),
  );
  const dropLocation = !out.verbose && natural > out.width && out.width < WIDE;
  const [header, ...lines] = dropLocation
    ? fitTable(
        headers.slice(0, 3),
        rows.map((r) => r.slice(0, 3)),
        cells.map((r) => r.slice(0, 3)),
        out.width,
      )
    : fitTable(headers, rows, cells, out.width);
  // One write for the whole table: a write per line costs a system call each on a pipe.
  const table = lines.map((line) => `${c.bold(line.name)}${line.rest}`);
  if (header) table.unshift(c.dim(`${header.name}${header.rest}`));
  out.line(table.join("\n"));
}

/** The count of skills and what was left out; with --verbose, a line for each. */
function printSummary(ctx: Context, listing: Listing): void {
  const { out } = ctx;
  const c = out.color;
  const { hidden, shadowed, nested, failed, warnings } = listing;
  const notes: string[] = [];
  if (hidden.length > 0) notes.push(`${hidden.length} hidden from '${ctx.agent.name}'`);
  if (shadowed.length > nested) notes.push(`${shadowed.length - nested} shadowed`);
  if (nested > 0) {
    notes.push(
      nested === 1
        ? "1 nested copy (inside its parent skill)"
        : `${nested} nested copies (inside their parent skill)`,
    );
  }
  if (failed.length > 0) notes.push(c.red(`${failed.length} failed`));
  if (warnings.length > 0) notes.push(c.yellow(plural(warnings.length, "warning")));
  // In a pipe stdout is the skills alone: the count goes to stderr when there is something to
  // say beside it, as a warning would.
  if (!out.isTTY && notes.length === 0 && !out.verbose) return;
  const say = (text: string) => (out.isTTY ? out.line(text) : out.error(text));
  if (out.isTTY) out.line();
  const summary = `${plural(listing.visible.length, "skill")}${notes.length > 0 ? `, ${notes.join(", ")}` : ""}`;
  say(notes.length > 0 && !out.verbose ? `${summary} — run with --verbose` : summary);
  if (out.verbose) {
    for (const name of hidden)
      say(printable(`  hidden   ${name} (denied to agent '${ctx.agent.name}'; see: skill why ${name})`));
    for (const s of shadowed) say(shadowLine(s, ctx));
    for (const f of failed) say(`  ${c.red("failed")}   ${printable(f.error.message)}`);
    for (const d of warnings) say(`  ${c.yellow("warning")}  ${printable(d.message)}`);
    say(c.dim(`  ${ctx.configNote(ctx.configFiles)}`));
  }
}
