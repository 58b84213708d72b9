import { isMapping, type PermissionAction, type PermissionConfig, SkillError } from "@skill/core";
import { wildcardMatch } from "./wildcard.js";

/** One rule: for `permission` (e.g. `skill`) and values matching `pattern`, do `action`. */
export interface PermissionRule {
  readonly permission: string;
  readonly pattern: string;
  readonly action: PermissionAction;
}

/** Rules in order; the last one that matches decides. */
export type Ruleset = readonly PermissionRule[];

const ACTIONS: ReadonlySet<unknown> = new Set<PermissionAction>(["allow", "deny", "ask"]);

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (typeof value !== "object") return `a ${typeof value}`;
  const proto = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return "a mapping";
  const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" ? `a ${name}` : "an object that is not a plain mapping";
}

function found(value: unknown): string {
  if (value === undefined) return "nothing";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  if (text.length > 60) text = `${text.slice(0, 60)}…`;
  if (value === null || typeof value === "string") return text;
  return `${text} (${kindOf(value)})`;
}

function action(value: unknown, path: string): PermissionAction {
  if (ACTIONS.has(value)) return value as PermissionAction;
  throw new SkillError(
    "INVALID_FIELD",
    `Invalid permission action at ${path}: expected "allow", "deny" or "ask", found ${found(value)}`,
    { field: path },
  );
}

/**
 * Turns opencode-style permission config into rules, keeping the order written, across keys
 * and inside each key: `{ skill: "deny" }` is one rule with pattern `*`;
 * `{ skill: { "*": "allow", "internal-*": "deny" } }` is one rule per entry. A bare action
 * (`"allow"`, opencode's shorthand) is the rule `* *`. `undefined` gives no rules.
 *
 * Config usually comes from a JSON or YAML file, so it is checked: anything other than
 * `allow`, `deny` or `ask` where an action belongs throws rather than being read as allow.
 *
 * @param path names the config in error messages and `SkillError.field` (default `permission`)
 * @throws SkillError `INVALID_FIELD` naming the key path, e.g. `permission.skill.internal-*`
 *
 * @example
 * fromConfig({ "*": "deny", skill: { "*": "allow", "internal-*": "deny" } });
 * // [ { permission: "*", pattern: "*", action: "deny" },
 * //   { permission: "skill", pattern: "*", action: "allow" },
 * //   { permission: "skill", pattern: "internal-*", action: "deny" } ]
 */
export function fromConfig(
  config: PermissionConfig | PermissionAction | undefined,
  path = "permission",
): PermissionRule[] {
  if (config === undefined) return [];
  if (typeof config === "string") return [{ permission: "*", pattern: "*", action: action(config, path) }];
  if (!isMapping(config)) {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid permission config at ${path}: expected a mapping of permission names to "allow", "deny", "ask" or a mapping of patterns to those, found ${found(config)}`,
      { field: path },
    );
  }
  const rules: PermissionRule[] = [];
  for (const [permission, value] of Object.entries(config)) {
    const at = `${path}.${permission}`;
    if (!isMapping(value)) {
      rules.push({ permission, pattern: "*", action: action(value, at) });
      continue;
    }
    for (const [pattern, act] of Object.entries(value)) {
      rules.push({ permission, pattern, action: action(act, `${at}.${pattern}`) });
    }
  }
  return rules;
}

/**
 * The rule that decides `permission` for `pattern` (e.g. `skill` for `internal-x`): the last
 * rule, across `rulesets` in order, whose permission and pattern both match (see
 * {@link wildcardMatch}; a rule for permission `*` covers every permission). With no match,
 * or no rules at all, the answer is `ask`: `{ permission, pattern: "*", action: "ask" }`.
 *
 * @example
 * const rules = fromConfig({ skill: { "*": "allow", "internal-*": "deny" } });
 * evaluate("skill", "internal-docs", rules).action; // "deny"
 * evaluate("bash", "ls", rules).action; // "ask"
 */
export function evaluate(permission: string, pattern: string, ...rulesets: Ruleset[]): PermissionRule {
  for (let r = rulesets.length - 1; r >= 0; r--) {
    const rules = rulesets[r] as Ruleset;
    for (let i = rules.length - 1; i >= 0; i--) {
      const rule = rules[i] as PermissionRule;
      if (wildcardMatch(permission, rule.permission) && wildcardMatch(pattern, rule.pattern)) return rule;
    }
  }
  return { permission, pattern: "*", action: "ask" };
}
