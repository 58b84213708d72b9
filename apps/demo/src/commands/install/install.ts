import { type InstallPlan, restore } from "@skill/install";
import type { Context } from "../../context.js";
import { chosenAgents, cliError, type InstallFlags, scopeOf, showInstalled, sitePort } from "./installing.js";

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
  const agents = await chosenAgents(ctx, scope, flags);
  try {
    let planned: InstallPlan | undefined;
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
    await showInstalled(ctx, agents, planned ?? { skills: [], refused: [], skipped: [] }, report);
    return 0;
  } catch (error) {
    throw cliError(error);
  }
}
