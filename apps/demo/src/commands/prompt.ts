import { isAbsolute, relative, sep } from "node:path";
import type { SkillMetadata } from "@skill/core";
import { formatCatalog } from "@skill/format";
import { type Context, createService } from "../context.js";
import { UsageError } from "../errors.js";
import { capList } from "../output.js";
import { DEFAULT_BUDGET, RANKS } from "./prompt-options.js";

const STYLES = ["xml", "markdown", "json"] as const;
const LOCATIONS = ["path", "file-url"] as const;

/** Names shown on one stderr line before `and N more` (all with --verbose). */
const SHOWN_NAMES = 20;

function inside(path: string, dir: string): boolean {
  if (!isAbsolute(path)) return false;
  const rel = relative(dir, path);
  return rel !== "" && !rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel);
}

/** Project skills (3) before user skills (2) before remote ones (1). */
function sourceRank(ctx: Context): (skill: SkillMetadata) => number {
  return (skill) => {
    const source = skill.source ?? "";
    if (source.startsWith("remote") || !isAbsolute(skill.location) || inside(skill.location, ctx.cacheDir))
      return 1;
    if (source.startsWith("project:") || source.startsWith("config:") || inside(skill.location, ctx.cwd))
      return 3;
    return 2;
  };
}

/** `a, b, c and N more`, or every name with --verbose. */
function names(list: readonly string[], all: boolean): string {
  return capList(list, all, SHOWN_NAMES); // escapes: names come from skill files
}

/** `skill prompt`: the catalog for the system prompt, and what a budget left out. */
export async function prompt(
  ctx: Context,
  options: { style?: string; budget?: number; location?: string; rank?: string },
): Promise<number> {
  const style = (options.style ?? "xml") as (typeof STYLES)[number];
  if (!STYLES.includes(style))
    throw new UsageError(`--style must be one of ${STYLES.join(", ")}, got '${options.style}'`);
  const locationStyle = (options.location ?? "path") as (typeof LOCATIONS)[number];
  if (!LOCATIONS.includes(locationStyle)) {
    throw new UsageError(`--location must be one of ${LOCATIONS.join(", ")}, got '${options.location}'`);
  }
  const rankBy = (options.rank ?? "source") as (typeof RANKS)[number];
  if (!RANKS.includes(rankBy)) {
    throw new UsageError(`--rank must be one of ${RANKS.join(", ")}, got '${options.rank}'`);
  }
  const budget = options.budget ?? DEFAULT_BUDGET;
  const service = createService(ctx);
  await service.discoverAndLoad();
  const skills = service.all(ctx.agent);
  const result = formatCatalog(skills, {
    style,
    locationStyle,
    budget,
    ...(rankBy === "source" ? { rank: sourceRank(ctx) } : {}),
  });
  if (ctx.out.json) {
    const shown = Number.isFinite(budget) ? budget : null;
    ctx.out.data({ agent: ctx.agent.name, budget: shown, rank: rankBy, ...result });
    return 0;
  }
  if (result.text) ctx.out.line(result.text);
  const all = ctx.out.verbose;
  const label = Number.isFinite(budget) ? `budget ${budget}` : "no budget";
  if (result.omitted.length > 0) {
    ctx.out.error(`${label}: left out ${result.omitted.length} skill(s): ${names(result.omitted, all)}`);
  }
  if (result.truncated.length > 0) {
    ctx.out.error(`${label}: shortened the description of ${names(result.truncated, all)}`);
  }
  if (result.hidden.length > 0) {
    ctx.out.error(`not for the model (disable-model-invocation): ${names(result.hidden, all)}`);
  }
  return 0;
}
