import { printable } from "@skill/core";
import { catalogRank, formatCatalog } from "@skill/format";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { capList, plural } from "../../output.js";
import { createService, loadSkills, pinnedNames, presetTarget } from "../../service.js";
import { DEFAULT_BUDGET, RANKS } from "./options.js";

const STYLES = ["xml", "markdown", "json"] as const;
const LOCATIONS = ["path", "file-url"] as const;

/** Names shown on one stderr line before `and N more` (all with --verbose). */
const SHOWN_NAMES = 20;

/** `a, b, c and N more`, or every name with --verbose. */
function names(list: readonly string[], all: boolean): string {
  return capList(list, all, SHOWN_NAMES); // escapes: names come from skill files
}

export interface PromptOptions {
  readonly style?: string;
  readonly budget?: number;
  readonly location?: string;
  readonly rank?: string;
  readonly pin?: readonly string[];
  readonly search?: boolean;
}

/** `skill prompt`: the catalog for the system prompt, and what a budget left out. */
export async function run(ctx: Context, options: PromptOptions): Promise<number> {
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
  if (options.search && style === "json") {
    throw new UsageError("--search writes the catalog a skill tool describes: --style xml or markdown");
  }
  const budget = options.budget ?? DEFAULT_BUDGET;
  const pinned = pinnedNames(ctx, options.pin);
  const service = createService(ctx);
  await loadSkills(ctx, service);
  const skills = service.all(ctx.agent);
  const known = new Set(skills.map((s) => s.name));
  // Names the --preset agent would refuse go last, then project skills before configured
  // paths, user, system, remote and MCP ones; equal ranks keep the input order, by name.
  const target = presetTarget(ctx);
  const unknown = pinned.filter((n) => !known.has(n));

  let result: ReturnType<typeof formatCatalog>;
  let definitions: readonly { name: string; description: string; inputSchema: unknown }[] | undefined;
  if (options.search) {
    const [{ skillTools, SEARCH_TOOL }, { createSkillIndex }] = await Promise.all([
      import("@skill/tool"),
      import("@skill/search"),
    ]);
    const tools = skillTools(service, {
      agent: ctx.agent,
      search: createSkillIndex([]),
      budget,
      pinned,
      style: style as "xml" | "markdown",
      target,
      // --rank source is the tools' own default (valid names, source); input keeps the name order.
      ...(rankBy === "input" ? { rank: () => 0 } : {}),
    });
    result = tools.catalog();
    definitions = tools.definitions.filter((d) => d.name === SEARCH_TOOL);
  } else {
    result = formatCatalog(skills, {
      style,
      locationStyle,
      budget,
      pinned,
      ...(rankBy === "source" ? { rank: catalogRank({ target }) } : {}),
    });
  }

  if (ctx.out.json) {
    const shown = Number.isFinite(budget) ? budget : null;
    ctx.out.data({
      agent: ctx.agent.name,
      budget: shown,
      rank: rankBy,
      pinned,
      ...result,
      ...(definitions ? { definitions } : {}),
    });
    return 0;
  }
  // An empty catalog is no block at all (a harness leaves it out of the prompt); JSON is still JSON.
  if (result.text) ctx.out.line(result.text);
  else if (style === "json") ctx.out.line("[]");
  if (definitions?.[0]) {
    ctx.out.line("");
    ctx.out.line(JSON.stringify(definitions[0], null, 2));
  }
  notes(ctx, result, budget, options.search === true, definitions !== undefined && definitions.length > 0);
  for (const name of unknown) {
    ctx.out.error(printable(`pinned '${name}': no such skill for agent '${ctx.agent.name}' (ignored)`));
  }
  return 0;
}

/** What the catalog left out, shortened or hid, on stderr. */
function notes(
  ctx: Context,
  result: ReturnType<typeof formatCatalog>,
  budget: number,
  search: boolean,
  offered: boolean,
): void {
  const all = ctx.out.verbose;
  const label = Number.isFinite(budget) ? `budget ${budget}` : "no budget";
  if (result.text === "") {
    ctx.out.error(
      result.omitted.length > 0
        ? `${label}: not even one skill fits, so there is no catalog (a harness leaves it out of the prompt)`
        : `no skill for agent '${printable(ctx.agent.name)}' here, so there is no catalog (a harness leaves it out of the prompt)`,
    );
  }
  if (result.omitted.length > 0) {
    ctx.out.error(
      `${label}: left out ${plural(result.omitted.length, "skill")}: ${names(result.omitted, all)}`,
    );
    if (!search) {
      ctx.out.error(
        "the model can load those only by exact name; --search adds the skill_search tool, which finds them by what they do",
      );
    }
  }
  const bare = new Set(result.nameOnly);
  const shortened = result.truncated.filter((n) => !bare.has(n));
  if (shortened.length > 0) {
    ctx.out.error(`${label}: shortened the description of ${names(shortened, all)}`);
  }
  if (result.nameOnly.length > 0) {
    ctx.out.error(`${label}: listed by name only: ${names(result.nameOnly, all)}`);
  }
  if (result.hidden.length > 0) {
    ctx.out.error(`not for the model (disable-model-invocation): ${names(result.hidden, all)}`);
  }
  if (search && !offered) {
    ctx.out.error("every skill is listed with its description: a harness would not offer skill_search");
  }
}
