import { VISIBILITY_REASONS, type VisibilityCell, type VisibilityReport } from "@skill/discovery";
import { cut, plural } from "../../output.js";

/** Characters a cell may take before it is cut (a reason id or a loaded name). */
export const CELL_WIDTH = 18;

/** What the agent really does where its preset keeps one winner (see `compareAgents`). */
const AGENT_DUPLICATES: ReadonlySet<string> = new Set(["duplicate-listed", "nondeterministic"]);

/** How a cell is painted: loaded, what the agent does with copies, harmless, a reason, a name. */
export type Tone = "loaded" | "copies" | "quiet" | "reason" | "name";

/** A cell as the matrix shows it. */
export interface CellView {
  readonly text: string;
  readonly tone: Tone;
}

/**
 * The text of one agent's cell on a row. A shadowed copy of a nested skill says where it is:
 * `inside <parent>` for the copy inside its parent's folder, `also in <parent>` for the skill's
 * own folder when the copy inside the parent wins.
 */
export function cellView(
  cell: VisibilityCell | undefined,
  row: { name: string; location: string },
): CellView {
  if (!cell) return { text: "", tone: "quiet" };
  if (cell.loaded) {
    if (cell.detail === "nondeterministic") return { text: "✓ nondeterministic", tone: "copies" };
    // Claude Code keys a skill by its folder and shows the name beside it: `key (displayName)`.
    const label = cell.displayName === undefined ? cell.name : `${cell.name} (${cell.displayName})`;
    return label === row.name
      ? { text: "✓", tone: "loaded" }
      : { text: cut(label, CELL_WIDTH), tone: "name" };
  }
  if (cell.reason === "shadowed" && cell.detail !== undefined && AGENT_DUPLICATES.has(cell.detail)) {
    return { text: cell.detail, tone: "copies" };
  }
  if (cell.reason === "shadowed" && cell.nested !== undefined) {
    const where = cell.nested.inside === row.location ? "inside" : "also in";
    return { text: cut(`${where} ${cell.nested.parent}`, CELL_WIDTH), tone: "quiet" };
  }
  return { text: cell.reason, tone: cell.reason === "not-scanned" ? "quiet" : "reason" };
}

/** The legend's entries for the kinds of cell the matrix shows beyond ✓, names and reasons. */
export function legendNotes(report: VisibilityReport): string[] {
  const cells = report.skills.flatMap((s) => Object.values(s.cells));
  const notes: string[] = [];
  if (cells.some((c) => c.detail !== undefined && AGENT_DUPLICATES.has(c.detail))) {
    notes.push(
      "duplicate-listed: the agent lists this copy too;",
      "nondeterministic: which copy wins changes between runs;",
    );
  }
  if (cells.some((c) => !c.loaded && c.nested !== undefined)) {
    notes.push(
      "inside X: a nested skill's copy inside its parent X, the skill being installed in its own folder too;",
      "also in X: a nested skill's own folder, its copy inside its parent X taking precedence;",
    );
  }
  return notes;
}

/**
 * One line per agent: what it loads, the nested copies it passes over, and the reasons it
 * leaves the rest (not-scanned aside).
 */
export function summaries(report: VisibilityReport): string[][] {
  return report.agents.map((agent) => {
    let loaded = 0;
    let nested = 0;
    const reasons = new Map<string, number>();
    const count = (key: string) => reasons.set(key, (reasons.get(key) ?? 0) + 1);
    for (const s of report.skills) {
      const cell = s.cells[agent];
      if (!cell) continue;
      if (cell.loaded) loaded++;
      else if (cell.nested !== undefined) nested++;
      // Copies the agent lists too, or keeps one of at random, are counted as their cells read.
      else if (cell.reason === "shadowed" && cell.detail !== undefined && AGENT_DUPLICATES.has(cell.detail))
        count(cell.detail);
      else if (cell.reason !== "not-scanned") count(cell.reason);
    }
    // Nested copies and the agent's own duplicates are counted where shadowed ones are, apart from them.
    const notes = VISIBILITY_REASONS.flatMap((r) => [
      ...(reasons.has(r) ? [`${reasons.get(r)} ${r}`] : []),
      ...(r === "shadowed"
        ? [...AGENT_DUPLICATES].filter((d) => reasons.has(d)).map((d) => `${reasons.get(d)} ${d}`)
        : []),
      ...(r === "shadowed" && nested > 0 ? [plural(nested, "nested copy", "nested copies")] : []),
    ]);
    return [agent, [`${plural(loaded, "skill")} loaded`, ...notes].join(", ")];
  });
}
