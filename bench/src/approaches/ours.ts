import { SkillService } from "@skill/core";
import { discoverySources } from "@skill/discovery";
import type { TreeLayout } from "../tree.js";
import type { LocalOutput } from "./types.js";

/** The public API exactly as a harness calls it: discovery sources, full parse and validation. */
export async function run(layout: TreeLayout): Promise<LocalOutput> {
  const service = new SkillService({
    sources: discoverySources({ cwd: layout.cwd, home: layout.home, paths: layout.paths }),
  });
  const report = await service.discoverAndLoad();
  const skills = service.all();
  return { found: skills.length, pairs: skills, failed: report.failed.length };
}
