import { printable, similarNames } from "@skill/core";
import { type Context, policy } from "../../context.js";
import { displayPath } from "../../output.js";
import { agentCopies, createService, loadSkills } from "../../service.js";

/** `skill why NAME --agent A`: the rule, and the layer it came from, that decides visibility. */
export async function run(ctx: Context, name: string): Promise<number> {
  const service = createService(ctx);
  const report = await loadSkills(ctx, service);
  const skill = service.get(name);
  const explanation = policy(ctx).explain(ctx.agent, "skill", name);
  const visible = explanation.action !== "deny";
  const { out } = ctx;
  // No such skill: exit 1, as `show` does, and say so before the rule that would apply.
  const status = skill === undefined ? 1 : 0;
  const copies = visible ? agentCopies(ctx, report, name) : undefined;
  if (out.json) {
    out.data({
      skill: name,
      agent: ctx.agent.name,
      exists: skill !== undefined,
      visible,
      ...explanation,
      ...(copies === undefined ? {} : { preset: ctx.preset, copies }),
    });
    return status;
  }
  const c = out.color;
  if (skill === undefined) {
    const similar = similarNames(
      name,
      service.all(ctx.agent).map((s) => s.name),
    ).slice(0, 3);
    const hint = similar.length > 0 ? ` Did you mean ${similar.map((n) => `'${n}'`).join(", ")}?` : "";
    out.line(printable(`No skill named '${name}' is installed here.${hint}`));
    out.line(c.dim(printable(`(skill search '${name}' finds skills by what they do)`)));
  }
  const [see, ask, hide] =
    skill === undefined
      ? [
          `would see a skill named '${name}'`,
          "and ask before loading it",
          `would not see a skill named '${name}'`,
        ]
      : [`sees '${name}'`, "and asks before loading it", `does not see '${name}'`];
  const verdict = !visible
    ? c.red(hide)
    : explanation.action === "ask"
      ? c.yellow(`${see}, ${ask}`)
      : c.green(see);
  out.line(printable(`Agent '${ctx.agent.name}' ${verdict}.`));
  if (copies !== undefined) {
    const n = copies.locations.length;
    const where = copies.locations.map((l) => displayPath(l, ctx.cwd, ctx.home)).join(", ");
    out.line(
      c.yellow(
        printable(
          copies.kind === "duplicate-listed"
            ? `${ctx.preset} lists all ${n} copies of '${name}' (${where}): the model sees ${n} '${name}' skills.`
            : `${ctx.preset} keeps one of the ${n} copies of '${name}' (${where}), which one changes from run to run; here: ${displayPath(copies.locations[0] as string, ctx.cwd, ctx.home)}.`,
        ),
      ),
    );
  }
  const rule = explanation.rule;
  const layer =
    explanation.layer === "agent"
      ? `agent '${ctx.agent.name}' permission${explanation.file ? ` in ${explanation.file}` : ""}`
      : explanation.layer === "config"
        ? `config ${explanation.file ?? ""}`.trim()
        : explanation.layer === "defaults"
          ? "built-in defaults"
          : "no rule matched";
  if (rule)
    out.line(
      `Deciding rule: ${rule.permission} ${JSON.stringify(rule.pattern)} → ${rule.action}  (from ${layer})`,
    );
  else out.line(`No rule matched '${name}'; the fallback is ${explanation.action}.`);
  return status;
}
