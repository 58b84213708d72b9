import { printable } from "@skill/core";
import {
  compareAgents,
  DEFAULT_MAX_DIRS,
  DISCOVERY_PRESETS,
  type DiscoveryPreset,
  type VisibilityReport,
} from "@skill/discovery";
import { type Context, policy } from "../../context.js";
import { UsageError } from "../../errors.js";
import { cut, displayPath, plural, table } from "../../output.js";
import { CELL_WIDTH, type CellView, cellView, legendNotes, summaries } from "./cell.js";
import { copiesLines } from "./copies.js";
import { userOnlyLines } from "./user-only.js";

function parseAgents(value: string | undefined): DiscoveryPreset[] | undefined {
  if (value === undefined) return undefined;
  const names = value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  for (const name of names) {
    if (!DISCOVERY_PRESETS.includes(name as DiscoveryPreset)) {
      throw new UsageError(
        `Unknown agent ${JSON.stringify(printable(name))} in --agents (expected some of: ${DISCOVERY_PRESETS.join(", ")})`,
      );
    }
  }
  if (names.length === 0) throw new UsageError("--agents needs at least one agent");
  return [...new Set(names)] as DiscoveryPreset[];
}

/** `text` in lines of at most `columns` characters, broken between words. */
function wrapWords(text: string, columns: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && [...line].length + 1 + [...word].length > columns) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(cut(line, columns));
  return lines;
}

/**
 * Where the presets stopped on purpose and the agents would go on: a line per link not followed
 * (a link to `/` or home is worth seeing even when nothing was found), and one for the folders
 * left past the folder bound, with the agents each concerns.
 */
function deliberateLines(report: VisibilityReport, ctx: Context): string[] {
  const links = new Map<string, string[]>();
  const past = new Map<string, Set<string>>();
  for (const d of report.deliberate) {
    if (d.reason === "link-to-ancestor") links.set(d.path, [...(links.get(d.path) ?? []), d.agent]);
    else past.set(d.agent, (past.get(d.agent) ?? new Set()).add(d.path));
  }
  const lines = [...links].map(
    ([path, agents]) =>
      `  ${printable(displayPath(path, ctx.cwd, ctx.home))}: a link to /, the home folder or above its root, not followed (${agents.join(", ")}; the agents follow it)`,
  );
  if (past.size > 0) {
    const folders = new Set([...past.values()].flatMap((set) => [...set]));
    lines.push(
      `  ${plural(folders.size, "folder")} past the ${DEFAULT_MAX_DIRS}-folder bound of a root not scanned (${[...past.keys()].join(", ")}; the agents have no such bound)`,
    );
  }
  return lines;
}

/**
 * `skill doctor`: which agent loads which skill from here, and why not. Agent columns are split
 * into blocks that fit the terminal, each block repeating the skill column.
 */
/** Up to this many skills, the whole table; beyond, summaries first and the rows that differ (`--all`: everything). */
const WHOLE_TABLE_UP_TO = 40;

export async function run(ctx: Context, opts: { agents?: string; all?: boolean }): Promise<number> {
  const agents = parseAgents(opts.agents);
  const report = await compareAgents({
    cwd: ctx.cwd,
    home: ctx.home,
    env: ctx.env,
    paths: ctx.config.skills.paths,
    logger: ctx.logger,
    permission: policy(ctx),
    agent: ctx.agent,
    ...(agents === undefined ? {} : { agents }),
  });
  const { out } = ctx;
  if (out.json) {
    out.data({ ...report, configFiles: ctx.configFiles });
    return 0;
  }
  const c = out.color;
  const bounds = deliberateLines(report, ctx);
  if (report.skills.length === 0) {
    out.line(`No skills found from ${ctx.cwd} by any of: ${report.agents.join(", ")}.`);
    for (const line of bounds) out.line(c.yellow(line));
    return 0;
  }
  const width = Number.isFinite(out.width) ? out.width : 200;
  const whole = opts.all === true || report.skills.length <= WHOLE_TABLE_UP_TO;
  if (whole) printMatrix(ctx, report, width);
  else printGrouped(ctx, report, width);
  out.line();
  const where = (location: string) => printable(displayPath(location, ctx.cwd, ctx.home));
  for (const line of [...copiesLines(report, where), ...userOnlyLines(report, where)].flatMap((l) =>
    wrapWords(l, width),
  )) {
    out.line(c.yellow(line));
  }
  printLegend(ctx, report, width, whole);
  for (const line of bounds) out.line(c.yellow(line));
  out.line(c.dim(cut(ctx.configNote(ctx.configFiles.map((f) => displayPath(f, ctx.cwd, ctx.home))), width)));
  return 0;
}

/**
 * A real catalog is thousands of rows: what each agent makes of it first, then one row for each
 * way the agents treat a skill (the first such skill, `+N` the others treated alike).
 */
function printGrouped(ctx: Context, report: VisibilityReport, width: number): void {
  const { out } = ctx;
  const c = out.color;
  printSummaries(ctx, report, width);
  out.line();
  const groups = new Map<string, { first: (typeof report.skills)[number]; count: number }>();
  for (const skill of report.skills) {
    const key = report.agents.map((a) => cellView(skill.cells[a], skill).text).join("\0");
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { first: skill, count: 1 });
  }
  const rows = [...groups.values()].slice(0, WHOLE_TABLE_UP_TO);
  const skills = rows.map((r) => r.first);
  const labels = rows.map(({ first, count }) => (count > 1 ? `${first.name} +${count - 1}` : first.name));
  printMatrix(ctx, { ...report, skills }, width, labels);
  const left = groups.size - rows.length;
  out.line(
    c.dim(
      `${report.skills.length} skills in ${groups.size} ${groups.size === 1 ? "row" : "rows"}, one per way the agents treat them (+N: that many more alike)${left > 0 ? `, ${left} rows not shown` : ""}; --all lists every skill`,
    ),
  );
}

/** The skills by agents, in blocks of agent columns that fit `width`. */
function printMatrix(
  ctx: Context,
  report: VisibilityReport,
  width: number,
  labels?: readonly string[],
): void {
  const { out } = ctx;
  const c = out.color;
  // A row's label is the skill's name, or what `labels` says in its place (`pdf +12`).
  const names = report.skills.map((s, i) => cut(labels?.[i] ?? s.name, 32));
  const locations = report.skills.map((s) => printable(displayPath(s.location, ctx.cwd, ctx.home)));
  const nameWidth = Math.max(5, ...names.map((n) => [...n].length));
  // The location column gets what is left after the name and at least three agents.
  const locationRoom = Math.max(16, Math.min(48, width - nameWidth - 4 - 3 * (CELL_WIDTH + 2)));
  const shown = locations.map((l) =>
    l.length > locationRoom ? `…${l.slice(l.length - locationRoom + 1)}` : l,
  );
  const cells = report.skills.map((s) => report.agents.map((agent) => cellView(s.cells[agent], s)));
  const colWidth = report.agents.map((agent, i) =>
    Math.max(agent.length, ...cells.map((row) => [...(row[i] as CellView).text].length)),
  );
  const fixed = nameWidth + 2 + Math.max(8, ...shown.map((l) => [...l].length)) + 2;
  const tones = { loaded: c.green, copies: c.yellow, quiet: c.dim, reason: c.yellow, name: c.cyan };
  const paint = (cell: CellView): string => tones[cell.tone](cell.text);
  agentBlocks(colWidth, fixed, width).forEach((indexes, b) => {
    if (b > 0) out.line();
    const header = [
      c.dim("SKILL"),
      c.dim("LOCATION"),
      ...indexes.map((i) => c.bold(report.agents[i] as string)),
    ];
    const rows = report.skills.map((_s, r) => [
      c.bold(names[r] as string),
      shown[r] as string,
      ...indexes.map((i) => paint((cells[r] as CellView[])[i] as CellView)),
    ]);
    for (const line of table([header, ...rows])) out.line(line);
  });
}

/** Agent columns (by index) in blocks that fit `width` beside the `fixed` skill columns. */
function agentBlocks(colWidth: readonly number[], fixed: number, width: number): number[][] {
  const blocks: number[][] = [];
  let block: number[] = [];
  let used = fixed;
  colWidth.forEach((columns, i) => {
    const w = columns + 2;
    if (block.length > 0 && used + w > width) {
      blocks.push(block);
      block = [];
      used = fixed;
    }
    block.push(i);
    used += w;
  });
  if (block.length > 0) blocks.push(block);
  return blocks;
}

/** What the cells mean, then (unless printed first) a line per agent summing up what it loads. */
function printLegend(ctx: Context, report: VisibilityReport, width: number, withSummaries: boolean): void {
  const { out } = ctx;
  const c = out.color;
  const legend = [
    "✓ loaded;",
    "a name: loaded under that name (`key (name)` where the agent keys skills by folder);",
    ...legendNotes(report),
    "otherwise why that agent does not load it",
  ];
  for (const line of wrapWords(legend.join(" "), width)) out.line(c.dim(line));
  if (withSummaries) printSummaries(ctx, report, width);
}

/** A line per agent summing up what it loads. */
function printSummaries(ctx: Context, report: VisibilityReport, width: number): void {
  const { out } = ctx;
  const c = out.color;
  const agentWidth = Math.max(...report.agents.map((a) => a.length));
  for (const line of table(
    summaries(report).map(([agent, text]) => [
      c.bold(agent as string),
      cut(text as string, Math.max(20, width - agentWidth - 2)),
    ]),
  )) {
    out.line(line);
  }
}
