import { userOnlyNote } from "@skill/core";
import type { VisibilityReport } from "@skill/discovery";

/**
 * A sentence per skill and agent where the agent loads a skill that says "user-only" in no
 * way it reads (its model sees the skill), or lists it but lets nobody invoke it (Copilot
 * CLI). `where` shows a location as the table does.
 */
export function userOnlyLines(report: VisibilityReport, where: (location: string) => string): string[] {
  const lines: string[] = [];
  for (const row of report.skills) {
    if (row.userOnly === undefined) continue;
    for (const agent of report.agents) {
      const cell = row.cells[agent];
      if (!cell?.loaded || (cell.userOnly !== "ignored" && cell.userOnly !== "unreachable")) continue;
      const note = userOnlyNote(agent, row.userOnly, row.name);
      if (note !== undefined) lines.push(`${agent}: ${note} (${where(row.location)})`);
    }
  }
  return lines;
}
