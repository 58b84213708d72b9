import { printable, similarNames } from "@skill/core";
import { type Context, createService, loadSkills, policy } from "../context.js";

/** `skill why NAME --agent A`: the rule, and the layer it came from, that decides visibility. */
export async function why(ctx: Context, name: string): Promise<number> {
  const service = createService(ctx);
  await loadSkills(ctx, service);
  const skill = service.get(name);
  const explanation = policy(ctx).explain(ctx.agent, "skill", name);
  const visible = explanation.action !== "deny";
  const { out } = ctx;
  if (out.json) {
    out.data({ skill: name, agent: ctx.agent.name, exists: skill !== undefined, visible, ...explanation });
    return 0;
  }
  const c = out.color;
  const verdict = visible
    ? explanation.action === "ask"
      ? c.yellow(`sees '${name}', and asks before loading it`)
      : c.green(`sees '${name}'`)
    : c.red(`does not see '${name}'`);
  out.line(`Agent '${ctx.agent.name}' ${verdict}.`);
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
  if (!skill) {
    const similar = similarNames(
      name,
      service.all(ctx.agent).map((s) => s.name),
    ).slice(0, 3);
    const hint = similar.length > 0 ? ` Did you mean ${similar.map((n) => `'${n}'`).join(", ")}?` : "";
    out.line(
      c.dim(
        printable(`(no skill named '${name}' is installed here; the rule above applies once one is)${hint}`),
      ),
    );
  }
  return 0;
}
