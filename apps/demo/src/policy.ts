import type { AgentInfo, PermissionAction } from "@skill/core";
import { createPermissionPolicy, type PermissionExplanation, type RulesetPolicy } from "@skill/permissions";
import type { Config } from "./config.js";

/** A decision of the layered policy, with the config file whose rule made it. */
export interface LayeredExplanation extends PermissionExplanation {
  readonly file?: string;
}

/** A policy over every config of the cascade, that can say which file's rule decided. */
export interface LayeredPolicy extends RulesetPolicy {
  explain(agent: AgentInfo, permission: string, pattern: string): LayeredExplanation;
}

/**
 * The permission rules of a config cascade (lowest precedence first). Each file's rules are
 * read as one policy — its `permission`, then the agent's own rules in it, last match wins —
 * and the files combine so that a folder can add rules but never loses a parent's deny: a
 * deny from any file holds; otherwise the nearest file with a matching rule decides; with
 * none, the built-in default (allow).
 */
export function layeredPolicy(configs: readonly Config[]): LayeredPolicy {
  const layers = configs.map((config) => ({
    config,
    policy: createPermissionPolicy(config.permission ? { config: config.permission } : {}),
  }));
  const fallback = createPermissionPolicy({});
  const explain = (agent: AgentInfo, permission: string, pattern: string): LayeredExplanation => {
    let decided: LayeredExplanation | undefined;
    for (const { config, policy } of layers) {
      const own = config.agent[agent.name]?.permission;
      const who: AgentInfo = own ? { name: agent.name, permission: own } : { name: agent.name };
      const e = policy.explain(who, permission, pattern);
      if (e.layer === "defaults" || e.layer === "none") continue;
      const found: LayeredExplanation = config.file ? { ...e, file: config.file } : e;
      if (e.action === "deny") return found;
      decided = found;
    }
    return decided ?? fallback.explain({ name: agent.name }, permission, pattern);
  };
  return {
    explain,
    evaluate: (agent, permission, pattern): PermissionAction => explain(agent, permission, pattern).action,
  };
}
