import { printable } from "@skill/core";
import { removeSkills } from "@skill/install";
import type { Context } from "../../context.js";
import { displayPath } from "../../output.js";
import { chosenAgents, cliError, noteAgentOption, scopeOf } from "./installing.js";

export interface RemoveFlags {
  readonly for?: string[];
  readonly global?: boolean;
  readonly force?: boolean;
}

/**
 * `skill remove NAME…`: @skill/install's removal of the agents' links (and the copies it made),
 * and of the canonical folder once no other agent uses it. Never a folder the lock does not
 * say it installed.
 */
export async function run(ctx: Context, names: string[], flags: RemoveFlags): Promise<number> {
  const scope = scopeOf(ctx, flags);
  const agents = flags.for?.length ? await chosenAgents(ctx, scope, flags) : undefined;
  if (agents === undefined) noteAgentOption(ctx, flags);
  let report: Awaited<ReturnType<typeof removeSkills>>;
  try {
    report = await removeSkills(names, {
      ...scope,
      ...(agents === undefined ? {} : { agents: agents.map((a) => a.id) }),
      force: flags.force === true,
    });
  } catch (error) {
    throw cliError(error);
  }
  const { out } = ctx;
  const c = out.color;
  if (out.json) {
    out.data({ removed: report.skills, lock: report.lock });
    return 0;
  }
  for (const r of report.skills) {
    out.line(`${c.bold(printable(r.name))}:`);
    for (const p of r.removed) out.line(`  ${c.green("removed")} ${p}`);
    for (const p of r.kept) out.line(`  ${c.dim("kept")} ${p}`);
    for (const p of r.left) out.line(`  ${c.yellow("left")} ${p}`);
  }
  if (report.lock) out.line(c.dim(`lock: ${displayPath(report.lock, ctx.cwd, ctx.home)}`));
  return 0;
}
