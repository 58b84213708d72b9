import { compareAgents } from "@skill/discovery";
import type { TreeLayout } from "../tree.js";
import type { LocalOutput } from "./types.js";

/**
 * What `skill doctor` computes: `compareAgents` over every preset (each agent's own load; scans
 * with the same plan and reads under the same load rules are shared), on the same tree as the
 * others. `found` counts the skills the default preset loads, so the run is checked like one
 * preset's load.
 */
export async function run(layout: TreeLayout): Promise<LocalOutput & { samples: { agents: number } }> {
  const report = await compareAgents({ cwd: layout.cwd, home: layout.home, paths: layout.paths });
  const found = report.skills.filter((s) => s.cells.default?.loaded === true).length;
  return { found, samples: { agents: report.agents.length } };
}
