import { join } from "node:path";
import { errorMessage, loadSkillFile, printable } from "@skill/core";
import { applyPlan, discardPlan, type InstallPlan, type InstallProgress, planAdd } from "@skill/install";
import type { Context } from "../../context.js";
import { cut } from "../../output.js";
import { type Progress, progressLine } from "../../progress.js";
import {
  chosenAgents,
  cliError,
  type InstallFlags,
  refusalLines,
  scopeOf,
  showInstalled,
  sitePort,
} from "./installing.js";

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
export async function run(
  ctx: Context,
  spec: string,
  given: string[],
  flags: InstallFlags & { readonly skill?: string[]; readonly list?: boolean },
): Promise<number> {
  const names = [...given, ...(flags.skill ?? [])];
  if (flags.list) return list(ctx, spec, names, flags);
  const scope = scopeOf(ctx, flags);
  const agents = await chosenAgents(ctx, scope, flags);
  const progress = progressLine("skill add  {bar}  {value}/{total}  {detail}", { enabled: !ctx.out.json });
  let plan: InstallPlan | undefined;
  try {
    plan = await planAdd(spec, {
      ...scope,
      onProgress: (event) => showStep(progress, event),
      agents: agents.map((a) => a.id),
      names,
      copy: flags.copy === true,
      force: flags.force === true,
      fetchSite: sitePort(ctx),
    });
    const report = await applyPlan(plan);
    progress.stop();
    showSkipped(ctx, plan, names);
    await showInstalled(ctx, agents, plan, report);
    return report.refused.length > 0 ? 1 : 0;
  } catch (error) {
    progress.stop();
    if (plan) showSkipped(ctx, plan, names);
    throw cliError(error);
  }
}

/** What the source holds that is not installed is named, never dropped silently. */
function showSkipped(ctx: Context, plan: InstallPlan, names: readonly string[]): void {
  if (names.length > 0) return;
  for (const s of plan.skipped) {
    ctx.out.error(
      `skill: warning: left out ${JSON.stringify(printable(s.path))}: ${printable(skipReason(s.reason))}`,
    );
  }
}

/** What an install step says on the progress line: `hashing pdf`, `placing pdf`, with counts when it has them. */
const STEPS: Readonly<Record<InstallProgress["step"], string>> = {
  fetch: "fetching the source",
  scan: "reading its skills",
  hash: "hashing",
  place: "placing",
  lock: "writing the lock",
};

function showStep(progress: Progress, event: InstallProgress): void {
  if (event.total !== undefined) progress.total(event.total);
  const detail = printable(
    event.name === undefined ? STEPS[event.step] : `${STEPS[event.step]} ${event.name}`,
  );
  progress.update(event.done ?? 0, { detail: detail.slice(0, 60) });
}

/**
 * `skill add SOURCE --list`: the skills the source holds (or those named), each with its
 * description as core reads its fetched SKILL.md, and what was left out; nothing installed.
 */
async function list(ctx: Context, spec: string, names: string[], flags: InstallFlags): Promise<number> {
  const scope = scopeOf(ctx, flags);
  const agents = await chosenAgents(ctx, scope, flags);
  let plan: InstallPlan;
  try {
    plan = await planAdd(spec, {
      ...scope,
      agents: agents.map((a) => a.id),
      ...(names.length > 0 ? { names } : {}),
      fetchSite: sitePort(ctx),
    });
  } catch (error) {
    throw cliError(error);
  }
  try {
    const skills = await Promise.all(
      plan.skills.map(async (s) => {
        // A site's skills come without one: their fetched SKILL.md is read here.
        const description =
          s.description ??
          (await loadSkillFile(join(s.staged, "SKILL.md")).then(
            ({ skill }) => skill.description,
            (error: unknown) => `(unreadable: ${errorMessage(error)})`,
          ));
        return { name: s.name, description };
      }),
    );
    if (ctx.out.json) {
      ctx.out.data({ source: spec, skills, refused: plan.refused, skipped: plan.skipped });
      return 0;
    }
    const { out } = ctx;
    const width = Math.max(0, ...skills.map((s) => printable(s.name).length));
    // On a terminal a description is cut to the line; in a pipe it is whole.
    const shown = (text: string) =>
      out.isTTY ? cut(text, Math.max(20, out.width - width - 4)) : cut(text, Number.POSITIVE_INFINITY);
    out.line(`${printable(spec)}: ${skills.length === 1 ? "1 skill" : `${skills.length} skills`}`);
    for (const s of skills)
      out.line(`  ${out.color.bold(printable(s.name).padEnd(width))}  ${shown(s.description)}`);
    for (const line of refusalLines(plan.refused)) out.line(`  not installable: ${line}`);
    showSkipped(ctx, plan, names);
    return 0;
  } finally {
    await discardPlan(plan);
  }
}
