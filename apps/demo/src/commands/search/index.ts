import { printable } from "@skill/core";
import { createSkillIndex, DEFAULT_SEARCH_LIMIT } from "@skill/search";
import type { Context } from "../../context.js";
import { cut, plural, width } from "../../output.js";
import { createService, loadSkills } from "../../service.js";

const GAP = "  ";
/** The name column never takes more than this many cells; the description gets the rest. */
const NAME_MAX = 40;
const DESCRIPTION_MIN = 16;

/**
 * `skill search QUERY`: the skills this agent sees, ranked by how well they fit the words. The
 * index is built from `all(agent)`, so a denied skill is never found. Exit code 1 when nothing
 * matches, as grep does. On a terminal a table; in a pipe, as `list` writes it, a line per hit
 * `name<TAB>score<TAB>description<TAB>location` with no header, and notes on stderr.
 */
export async function run(ctx: Context, words: readonly string[], opts: { limit?: number }): Promise<number> {
  const query = words.join(" ");
  const service = createService(ctx);
  await loadSkills(ctx, service);
  const visible = service.all(ctx.agent);
  const byName = new Map(visible.map((s) => [s.name, s]));
  const hits = createSkillIndex(visible).search(query, { limit: opts.limit ?? DEFAULT_SEARCH_LIMIT });
  const { out } = ctx;

  if (out.json) {
    out.data({
      agent: ctx.agent.name,
      query,
      searched: visible.length,
      hits: hits.map((h) => ({
        name: h.name,
        score: h.score,
        terms: h.terms,
        description: byName.get(h.name)?.description ?? "",
        location: byName.get(h.name)?.location ?? "",
      })),
    });
    return hits.length > 0 ? 0 : 1;
  }

  const about = `${plural(visible.length, "skill")} visible to agent '${printable(ctx.agent.name)}'`;
  if (hits.length === 0) {
    const none = `No skill matches ${JSON.stringify(printable(query))} (searched ${about}).`;
    if (out.isTTY) out.line(none);
    else out.error(none);
    return 1;
  }
  if (!out.isTTY) {
    // A name or path keeps every character, a tab or line break in it escaped: four fields a line.
    const line = (h: (typeof hits)[number]) => {
      const skill = byName.get(h.name);
      const description = cut(skill?.description ?? "", Number.POSITIVE_INFINITY); // spacing collapsed, nothing cut
      return `${printable(h.name)}\t${h.score.toFixed(1)}\t${description}\t${printable(skill?.location ?? "")}`;
    };
    out.line(hits.map(line).join("\n"));
    if (out.verbose) out.error(`${plural(hits.length, "match", "matches")} of ${about}`);
    return 0;
  }
  const c = out.color;
  const names = hits.map((h) => cut(h.name, NAME_MAX));
  const scores = hits.map((h) => h.score.toFixed(1));
  const nameWidth = Math.max(width("NAME"), ...names.map(width));
  const scoreWidth = Math.max(width("SCORE"), ...scores.map(width));
  const room = Math.max(DESCRIPTION_MIN, out.width - nameWidth - scoreWidth - 2 * GAP.length);
  const pad = (text: string, cells: number) => text + " ".repeat(Math.max(0, cells - width(text)));
  const left = (text: string, cells: number) => " ".repeat(Math.max(0, cells - width(text))) + text;
  out.line(c.dim(`${pad("NAME", nameWidth)}${GAP}${left("SCORE", scoreWidth)}${GAP}DESCRIPTION`));
  hits.forEach((hit, i) => {
    const description = cut(byName.get(hit.name)?.description ?? "", room);
    out.line(
      `${c.bold(pad(names[i] as string, nameWidth))}${GAP}${left(scores[i] as string, scoreWidth)}${GAP}${description}`.trimEnd(),
    );
    if (out.verbose)
      out.line(c.dim(`${" ".repeat(nameWidth)}${GAP}matched: ${hit.terms.map(printable).join(", ")}`));
  });
  out.line();
  out.line(`${plural(hits.length, "match", "matches")} of ${about}`);
  return 0;
}
