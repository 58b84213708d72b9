import type { VisibilityCell, VisibilityReport } from "@skill/discovery";

/** What the agent does with copies of one name that its preset's one winner cannot show. */
type CopiesKind = "duplicate-listed" | "nondeterministic";

function kindOf(cell: VisibilityCell | undefined): CopiesKind | undefined {
  const detail = cell?.detail;
  return detail === "duplicate-listed" || detail === "nondeterministic" ? detail : undefined;
}

const COUNTS = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];

function count(n: number): string {
  return COUNTS[n] ?? String(n);
}

/**
 * In words, per agent, the names whose copies a registry of one winner cannot hold as the agent
 * does: Codex lists every copy to the model, opencode keeps one at random. `where` shows a
 * location as the table does.
 */
export function copiesLines(report: VisibilityReport, where: (location: string) => string): string[] {
  const lines: string[] = [];
  for (const agent of report.agents) {
    const groups = new Map<string, { kind: CopiesKind; locations: string[] }>();
    for (const row of report.skills) {
      const kind = kindOf(row.cells[agent]);
      if (kind !== undefined) groups.set(row.name, { kind, locations: [] });
    }
    for (const row of report.skills) {
      const cell = row.cells[agent];
      const group = groups.get(row.name);
      if (group && cell && (cell.loaded || kindOf(cell) !== undefined))
        group.locations.push(where(row.location));
    }
    for (const [name, { kind, locations }] of groups) {
      const n = locations.length;
      const copies = `${n === 2 ? "both copies" : `all ${count(n)} copies`} of '${name}' (${locations.join(", ")})`;
      lines.push(
        kind === "duplicate-listed"
          ? `${agent} lists ${copies}: the model sees ${count(n)} '${name}' skills`
          : `${agent} keeps one of the ${count(n)} copies of '${name}' (${locations.join(", ")}), which one changes from run to run`,
      );
    }
  }
  return lines;
}
