import type { AgentInfo, PermissionAction, PermissionConfig, PermissionPolicy } from "@skill/core";
import { fromConfig, type PermissionRule } from "./ruleset.js";
import { compileWildcard, type Matcher } from "./wildcard.js";

/** Where a deciding rule came from; `none` when no rule matched and the answer is `ask`. */
export type PermissionLayer = "defaults" | "config" | "agent" | "none";

/** Why a policy answered what it did: the action, and the rule and layer that decided it. */
export interface PermissionExplanation {
  readonly action: PermissionAction;
  readonly layer: PermissionLayer;
  /** The deciding rule; absent when no rule matched (`layer: "none"`, `action: "ask"`). */
  readonly rule?: PermissionRule;
}

/** Options of {@link createPermissionPolicy}. */
export interface PermissionPolicyOptions {
  /** Lowest-precedence rules. Default `{ "*": "allow" }`; pass `{}` to have unmatched requests ask. */
  readonly defaults?: PermissionConfig | PermissionAction;
  /** The user's `permission` config; overrides `defaults`. */
  readonly config?: PermissionConfig | PermissionAction;
}

/** A {@link PermissionPolicy} built from rules, that can say why it decided. */
export interface RulesetPolicy extends PermissionPolicy {
  /** The action for `permission` (e.g. `skill`) and `pattern` (e.g. a skill name). */
  evaluate(agent: AgentInfo, permission: string, pattern: string): PermissionAction;
  /** The same decision, with the deciding rule and its layer (for a CLI's "why"). */
  explain(agent: AgentInfo, permission: string, pattern: string): PermissionExplanation;
}

interface CompiledRule {
  readonly rule: PermissionRule;
  readonly permission: Matcher;
  readonly pattern: Matcher;
}

const ALLOW_ALL: PermissionConfig = { "*": "allow" };
const NO_RULES: readonly CompiledRule[] = [];
const NO_MATCH: PermissionExplanation = Object.freeze({ action: "ask", layer: "none" });

function compile(rules: readonly PermissionRule[]): readonly CompiledRule[] {
  return rules.map((rule) => ({
    rule: Object.freeze({ ...rule }),
    permission: compileWildcard(rule.permission),
    pattern: compileWildcard(rule.pattern),
  }));
}

function lastMatch(
  rules: readonly CompiledRule[],
  permission: string,
  pattern: string,
): PermissionRule | undefined {
  for (let i = rules.length - 1; i >= 0; i--) {
    const r = rules[i] as CompiledRule;
    if (r.permission(permission) && r.pattern(pattern)) return r.rule;
  }
  return undefined;
}

/**
 * A permission policy for {@link SkillService} and for anything else that asks "may this agent
 * do X to Y?". Rules merge as `defaults`, then `config`, then the agent's own `permission`;
 * the last rule whose permission and pattern both match decides (see {@link evaluate}), and
 * no match at all means `ask`. `deny` hides a skill from `SkillService.all(agent)`; `ask`
 * keeps it listed.
 *
 * `defaults` and `config` are checked here, an agent's rules when first evaluated: a bad
 * action throws `INVALID_FIELD` naming its key path (`permission.skill.internal-*`,
 * `defaults.*`, `agent.build.permission.skill`). Patterns are compiled once, an agent's rules
 * once per `permission` object, so listing many skills costs little.
 *
 * @example
 * const policy = createPermissionPolicy({ config: { skill: { "*": "allow", "internal-*": "deny" } } });
 * const service = new SkillService({ sources, permission: policy });
 * service.all({ name: "build" }); // no internal-* skills
 * policy.explain({ name: "build" }, "skill", "internal-docs");
 * // { action: "deny", layer: "config", rule: { permission: "skill", pattern: "internal-*", action: "deny" } }
 */
export function createPermissionPolicy(options: PermissionPolicyOptions = {}): RulesetPolicy {
  const defaults = compile(fromConfig(options.defaults ?? ALLOW_ALL, "defaults"));
  const config = compile(fromConfig(options.config, "permission"));
  const agents = new WeakMap<object, readonly CompiledRule[]>();

  const agentRules = (agent: AgentInfo): readonly CompiledRule[] => {
    const permission: unknown = agent.permission;
    if (permission === undefined) return NO_RULES;
    const cached = typeof permission === "object" && permission !== null ? agents.get(permission) : undefined;
    if (cached) return cached;
    const rules = compile(fromConfig(agent.permission, `agent.${agent.name}.permission`));
    if (typeof permission === "object" && permission !== null) agents.set(permission, rules);
    return rules;
  };

  const explain = (agent: AgentInfo, permission: string, pattern: string): PermissionExplanation => {
    const layers = [
      ["agent", agentRules(agent)],
      ["config", config],
      ["defaults", defaults],
    ] as const;
    for (const [layer, rules] of layers) {
      const rule = lastMatch(rules, permission, pattern);
      if (rule) return { action: rule.action, layer, rule };
    }
    return NO_MATCH;
  };

  return {
    explain,
    evaluate: (agent, permission, pattern) => explain(agent, permission, pattern).action,
  };
}
