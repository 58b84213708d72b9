import { printable } from "@skill/core";
import { applyPlan, planAdd } from "@skill/install";
import type { Context } from "../../context.js";
import { chosenAgents, cliError, type InstallFlags, scopeOf, showInstalled, sitePort } from "./installing.js";

/** A reason the library gives for passing a path over, for people. */
function skipReason(reason: string): string {
  if (reason === "outside-source")
    return "its folder leads outside the source (a link); nothing of it was read";
  if (reason === "link-to-ancestor") return "a link to /, the home folder or above the source; not followed";
  return reason;
}

/**
 * `skill add SOURCE [NAME…]`: @skill/install's plan of the source's skills for the agents
 * (named with --for, else detected), applied, then what each agent makes of them. Skills the
 * source holds outside itself are skipped and named; names that collide are refused (exit 1).
 */
export async function run(ctx: Context, spec: string, names: string[], flags: InstallFlags): Promise<number> {
  const scope = scopeOf(ctx, flags);
  const agents = await chosenAgents(scope, flags);
  try {
    const plan = await planAdd(spec, {
      ...scope,
      agents: agents.map((a) => a.id),
      names,
      copy: flags.copy === true,
      force: flags.force === true,
      fetchSite: sitePort(ctx),
    });
    // What the source holds that is not installed is named, never dropped silently.
    if (names.length === 0) {
      for (const s of plan.skipped) {
        ctx.out.error(
          `skill: warning: left out ${JSON.stringify(printable(s.path))}: ${printable(skipReason(s.reason))}`,
        );
      }
    }
    const report = await applyPlan(plan);
    await showInstalled(ctx, agents, plan, report);
    return report.refused.length > 0 ? 1 : 0;
  } catch (error) {
    throw cliError(error);
  }
}
