import { restore } from "@skill/install";
import type { Context } from "../../context.js";
import {
  checkAgents,
  chosenAgents,
  cliError,
  type InstallFlags,
  printInstalled,
  scopeOf,
  sitePort,
} from "./installing.js";

export interface RestoreFlags extends InstallFlags {
  readonly frozen?: boolean;
}

/**
 * `skill install [--frozen]`: @skill/install's restore of every locked skill into its folder
 * and each agent's, from the source and ref the lock names, refusing files that do not hash to
 * the lock; then what each agent makes of them.
 */
export async function run(ctx: Context, flags: RestoreFlags): Promise<number> {
  const scope = scopeOf(ctx, flags);
  const agents = await chosenAgents(scope, flags);
  try {
    let planned: Parameters<typeof printInstalled>[1] | undefined;
    const report = await restore({
      ...scope,
      agents: agents.map((a) => a.id),
      frozen: flags.frozen === true,
      copy: flags.copy === true,
      force: flags.force === true,
      fetchSite: sitePort(ctx),
      review: async (plan) => {
        planned = plan;
        return true;
      },
    });
    const verdicts = await checkAgents(
      ctx,
      agents,
      report.installed.map((s) => ({ skill: s.name, dir: s.folder })),
    );
    const json = await printInstalled(
      ctx,
      planned ?? { skills: [], refused: [], skipped: [] },
      report,
      verdicts,
    );
    if (json !== undefined) ctx.out.data(json);
    return 0;
  } catch (error) {
    throw cliError(error);
  }
}
