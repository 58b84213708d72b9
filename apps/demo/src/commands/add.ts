import { printable } from "@skill/core";
import { hashFolder } from "@skill/lock";
import { type AgentTarget, agentTarget } from "../agent-targets.js";
import { type AgentVerdict, agentVerdicts } from "../agent-verdict.js";
import { type Context, remoteUse } from "../context.js";
import { UserError } from "../errors.js";
import { inOrder } from "../in-order.js";
import {
  detectedAgents,
  type FoundSkill,
  findSkills,
  type ReadySource,
  readySource,
  type Scope,
  ScopeLock,
} from "../install.js";
import { displayPath } from "../output.js";
import { applyPlacement, type Placed, type PlacementPlan, planPlacement } from "../place.js";
import { isSiteSpec, pullSite } from "../upstream.js";

export interface InstallFlags {
  readonly for?: string[];
  readonly global?: boolean;
  readonly copy?: boolean;
  readonly yes?: boolean;
  readonly force?: boolean;
}

export function scopeOf(ctx: Context, flags: InstallFlags): Scope {
  return {
    global: flags.global === true,
    root: flags.global ? ctx.home : ctx.cwd,
    home: ctx.home,
    env: ctx.env,
  };
}

export async function chosenAgents(scope: Scope, flags: InstallFlags): Promise<AgentTarget[]> {
  if (flags.for === undefined || flags.for.length === 0) return detectedAgents(scope);
  const chosen: AgentTarget[] = [];
  for (const name of flags.for) {
    const agent = agentTarget(name);
    if (!chosen.includes(agent)) chosen.push(agent);
  }
  return chosen;
}

/** Refuses, naming every path in the way, when any plan is blocked. */
export function refuseBlocked(plans: readonly PlacementPlan[]): void {
  const blocked = plans.flatMap((p) => p.blocked);
  if (blocked.length === 0) return;
  throw new UserError(
    `Not installing: ${blocked.join("; ")}. Nothing was changed; --force replaces ${blocked.length === 1 ? "it" : "them"}`,
  );
}

/** What each agent makes of the installed skills; a failure there (a broken config) is a warning, not a failed install. */
export async function checkAgents(
  ctx: Context,
  agents: readonly AgentTarget[],
  installed: readonly { readonly skill: string; readonly dir: string }[],
): Promise<AgentVerdict[]> {
  try {
    return await agentVerdicts(ctx, agents, installed);
  } catch (error) {
    ctx.out.error(
      `skill: warning: installed, but could not check what the agents load: ${printable((error as Error).message)}`,
    );
    return [];
  }
}

/** Prints what was installed and what each agent makes of it; returns the JSON form. */
export function report(
  ctx: Context,
  done: readonly { plan: PlacementPlan; placed: Placed; source: string }[],
  verdicts: readonly AgentVerdict[],
  lockFile: string,
): unknown {
  const show = (p: string) => displayPath(p, ctx.cwd, ctx.home);
  const { out } = ctx;
  const c = out.color;
  const json = done.map(({ plan, placed, source }) => ({
    name: plan.placement.skill,
    path: placed.canonical,
    source,
    computedHash: plan.placement.hash,
    replaced: plan.placement.force ? plan.replaces : [],
    links: placed.links,
    agents: verdicts.filter((v) => v.skill === plan.placement.skill),
  }));
  if (out.json) return { installed: json, lock: lockFile };
  for (const { plan, placed, source } of done) {
    const name = printable(plan.placement.skill);
    out.line(
      `${c.green("✓")} ${c.bold(name)} → ${show(placed.canonical)} ${c.dim(`(from ${printable(source)}, ${plan.placement.hash.slice(0, 12)}…)`)}`,
    );
    if (plan.placement.force && plan.replaces.length > 0)
      out.line(`  ${c.yellow("replaced")} ${plan.replaces.join(", ")}`);
    for (const link of placed.links) {
      const how = link.target === undefined ? "copy" : `-> ${printable(link.target)}`;
      out.line(`  ${show(link.path)} ${how} ${c.dim(`(${link.agents.join(", ")})`)}`);
    }
    for (const v of verdicts.filter((x) => x.skill === plan.placement.skill)) {
      if (v.loaded) {
        const as = v.name === plan.placement.skill ? "" : ` as ${JSON.stringify(printable(v.name))}`;
        out.line(`  ${c.bold(v.agent)}: loads it${as}`);
      } else {
        out.line(
          `  ${c.bold(v.agent)}: ${c.yellow("will not load it")}: ${v.reason}${v.detail ? ` (${printable(v.detail)})` : ""}`,
        );
      }
    }
  }
  out.line(c.dim(`lock: ${show(lockFile)}`));
  return undefined;
}

/** Skills hashed, checked or placed at once. */
const PARALLEL = 8;
/** Bytes of one skill's files kept from hashing to copying (a larger skill is read again to copy it). */
const KEEP_PER_SKILL = 4 * 1024 * 1024;
/** Bytes kept from hashing to copying, all skills together. */
const KEEP_TOTAL = 64 * 1024 * 1024;

function leftOut(s: { readonly name: string; readonly reason: string }): string {
  return `${JSON.stringify(printable(s.name))}: ${printable(s.reason)}`;
}

/** A source made ready and the skills it holds: a site or pack through `@skill/remote`, else a folder or git repository. */
async function openSource(
  ctx: Context,
  spec: string,
): Promise<{
  source: ReadySource;
  found: readonly FoundSkill[];
  skipped: readonly { name: string; reason: string }[];
}> {
  if (isSiteSpec(spec)) {
    const site = await pullSite(spec, remoteUse(ctx));
    return {
      source: {
        sourceType: "well-known",
        dir: "",
        source: spec,
        sourceUrl: site.indexUrl,
        cleanup: site.cleanup,
      },
      found: site.skills,
      skipped: site.skipped,
    };
  }
  const source = await readySource(spec, process.cwd(), ctx.env);
  try {
    return { source, found: await findSkills(source.dir), skipped: [] };
  } catch (error) {
    await source.cleanup();
    throw error;
  }
}

/** `skill add SOURCE [NAME…]`: copy skills into `.agents/skills`, link them for each agent, lock them. */
export async function add(ctx: Context, spec: string, names: string[], flags: InstallFlags): Promise<number> {
  const scope = scopeOf(ctx, flags);
  const agents = await chosenAgents(scope, flags);
  const lock = await ScopeLock.load(scope);
  const show = (p: string) => displayPath(p, ctx.cwd, ctx.home);
  const { source, found, skipped } = await openSource(ctx, spec);
  try {
    // A site's entry the pull left out (a wrong digest, an unsafe archive) is named, never dropped silently.
    for (const s of skipped) {
      if (names.includes(s.name)) {
        throw new UserError(
          `Not installing ${JSON.stringify(printable(s.name))}: ${printable(spec)} lists it, but it was left out: ${printable(s.reason)}`,
        );
      }
    }
    if (found.length === 0) {
      const why = skipped.length > 0 ? ` (left out: ${skipped.map(leftOut).join("; ")})` : "";
      throw new UserError(`No SKILL.md found in ${printable(spec)}${why}`);
    }
    if (names.length === 0) for (const s of skipped) ctx.out.error(`skill: warning: left out ${leftOut(s)}`);
    const wanted = names.length === 0 ? found : found.filter((s) => names.includes(s.name));
    const missing = names.filter((n) => !found.some((s) => s.name === n));
    if (missing.length > 0) {
      throw new UserError(
        `No skill named ${missing.map((n) => JSON.stringify(printable(n))).join(", ")} in ${printable(spec)} (found: ${found.map((s) => printable(s.name)).join(", ")})`,
      );
    }
    // Each skill is hashed and checked, then placed, a few at a time: the work is mostly
    // waiting on the file system. Placements into one folder (two skills of one name) stay in order.
    // What is hashed is kept (within a budget) and written as it was read: each file is read once.
    let kept = 0;
    const plans = await inOrder(wanted, PARALLEL, async (skill) => {
      const keepBytes = Math.max(0, Math.min(KEEP_PER_SKILL, KEEP_TOTAL - kept));
      const { hash, files } = await hashFolder(skill.dir, { keepBytes });
      for (const f of files ?? []) kept += f.bytes.length;
      return planPlacement(
        scope,
        lock,
        {
          skill: skill.name,
          from: skill.dir,
          hash,
          ...(files === undefined ? {} : { files }),
          agents,
          copy: flags.copy === true,
          force: flags.force === true,
        },
        show,
      );
    });
    refuseBlocked(plans);
    const now = new Date().toISOString();
    const done: { plan: PlacementPlan; placed: Placed; source: string }[] = [];
    const tails = new Map<string, Promise<Placed>>();
    const placedAll = await inOrder(plans, PARALLEL, (plan) => {
      const before = tails.get(plan.canonical);
      const placing = before
        ? before.then(
            () => applyPlacement(plan),
            () => applyPlacement(plan),
          )
        : applyPlacement(plan);
      tails.set(plan.canonical, placing);
      return placing;
    });
    for (const [i, plan] of plans.entries()) {
      const placed = placedAll[i] as Placed;
      const skill = wanted[i];
      const skillPath = skill?.skillPath;
      lock.set(
        {
          name: plan.placement.skill,
          source: source.source,
          sourceType: source.sourceType,
          ...(source.sourceUrl === undefined ? {} : { sourceUrl: source.sourceUrl }),
          ...(source.ref === undefined ? {} : { ref: source.ref }),
          // As `skills` writes it: a git source always names the skill's file; a local one only when it is not the folder itself.
          ...(skillPath === undefined ||
          source.sourceType === "well-known" ||
          (source.sourceType === "local" && skillPath === "SKILL.md")
            ? {}
            : { skillPath }),
          hash: plan.placement.hash,
          ...(skill?.digest === undefined ? {} : { wellKnownDigest: skill.digest }),
        },
        now,
      );
      done.push({ plan, placed, source: spec });
    }
    await lock.save();
    const verdicts = await checkAgents(
      ctx,
      agents,
      done.map(({ plan }) => ({ skill: plan.placement.skill, dir: plan.canonical })),
    );
    const json = report(ctx, done, verdicts, lock.file);
    if (json !== undefined) ctx.out.data(json);
    return 0;
  } finally {
    await source.cleanup();
  }
}
