import type { PermissionConfig } from "@skill/core";
import { describe, expect, it } from "vitest";
import { skillErrorFrom } from "./__fixtures__/errors.js";
import { evaluate, fromConfig } from "./ruleset.js";

describe("fromConfig", () => {
  it("turns a string value into one rule with pattern *", () => {
    expect(fromConfig({ skill: "deny" })).toEqual([{ permission: "skill", pattern: "*", action: "deny" }]);
  });

  it("turns an object value into one rule per entry, in the order written", () => {
    expect(fromConfig({ skill: { "*": "allow", "internal-*": "deny", "beta-*": "ask" } })).toEqual([
      { permission: "skill", pattern: "*", action: "allow" },
      { permission: "skill", pattern: "internal-*", action: "deny" },
      { permission: "skill", pattern: "beta-*", action: "ask" },
    ]);
  });

  it("keeps key order across permissions", () => {
    expect(fromConfig({ "*": "deny", skill: "allow", bash: { "git *": "allow" } })).toEqual([
      { permission: "*", pattern: "*", action: "deny" },
      { permission: "skill", pattern: "*", action: "allow" },
      { permission: "bash", pattern: "git *", action: "allow" },
    ]);
  });

  it("reads opencode's bare action shorthand as the rule `* *`", () => {
    expect(fromConfig("ask")).toEqual([{ permission: "*", pattern: "*", action: "ask" }]);
  });

  it("gives no rules for undefined or an empty mapping", () => {
    expect(fromConfig(undefined)).toEqual([]);
    expect(fromConfig({})).toEqual([]);
    expect(fromConfig({ skill: {} })).toEqual([]);
  });

  it("keeps a config parsed from JSON, `__proto__` key and all", () => {
    const config = JSON.parse('{"__proto__": "deny", "skill": {"__proto__": "ask"}}') as PermissionConfig;
    expect(fromConfig(config)).toEqual([
      { permission: "__proto__", pattern: "*", action: "deny" },
      { permission: "skill", pattern: "__proto__", action: "ask" },
    ]);
  });

  it.each([
    [
      "a typo",
      { skill: { "*": "allow", "internal-*": "dney" } },
      "permission.skill.internal-*",
      'found "dney"',
    ],
    ["a number", { skill: { "internal-*": 0 } }, "permission.skill.internal-*", "found 0 (a number)"],
    [
      "a list",
      { skill: { "internal-*": ["deny"] } },
      "permission.skill.internal-*",
      'found ["deny"] (a list)',
    ],
    ["null", { skill: { "internal-*": null } }, "permission.skill.internal-*", "found null"],
    ["a boolean", { skill: true }, "permission.skill", "found true (a boolean)"],
    ["an upper-case action", { skill: "Allow" }, "permission.skill", 'found "Allow"'],
    ["an empty string", { skill: "" }, "permission.skill", 'found ""'],
    [
      "a nested mapping",
      { skill: { x: { y: "deny" } } },
      "permission.skill.x",
      'found {"y":"deny"} (a mapping)',
    ],
  ])("refuses %s with INVALID_FIELD naming the key path", (_, config, path, foundText) => {
    const error = skillErrorFrom(() => fromConfig(config as unknown as PermissionConfig));
    expect(error.code).toBe("INVALID_FIELD");
    expect(error.field).toBe(path);
    expect(error.message).toContain(
      `Invalid permission action at ${path}: expected "allow", "deny" or "ask"`,
    );
    expect(error.message).toContain(foundText);
  });

  it("refuses a config that is not a mapping", () => {
    for (const config of [null, 3, ["skill"], "yes"]) {
      const error = skillErrorFrom(() => fromConfig(config as unknown as PermissionConfig));
      expect(error.code).toBe("INVALID_FIELD");
      expect(error.field).toBe("permission");
    }
  });

  it("refuses objects that are not plain mappings (Date, RegExp, Map) instead of reading them as no rules", () => {
    const odd: [unknown, string][] = [
      [new Date(0), "a Date"],
      [/internal-.*/, "a RegExp"],
      [new Map([["internal-*", "deny"]]), "a Map"],
    ];
    for (const [value, kind] of odd) {
      const top = skillErrorFrom(() => fromConfig(value as PermissionConfig));
      expect(top.code).toBe("INVALID_FIELD");
      expect(top.field).toBe("permission");
      expect(top.message).toContain(kind);
      const nested = skillErrorFrom(() => fromConfig({ skill: value } as unknown as PermissionConfig));
      expect(nested.code).toBe("INVALID_FIELD");
      expect(nested.field).toBe("permission.skill");
      expect(nested.message).toContain(kind);
    }
    // A mapping without a prototype (Object.create(null), as some parsers give) is still a mapping.
    const bare = Object.assign(Object.create(null), { skill: "deny" }) as PermissionConfig;
    expect(fromConfig(bare)).toEqual([{ permission: "skill", pattern: "*", action: "deny" }]);
  });

  it("names the key path under the prefix given, quoting long values truncated", () => {
    const error = skillErrorFrom(() =>
      fromConfig({ skill: { x: "y".repeat(500) } } as unknown as PermissionConfig, "agent.build.permission"),
    );
    expect(error.field).toBe("agent.build.permission.skill.x");
    expect(error.message.length).toBeLessThan(200);
    expect(error.message).toContain("…");
  });
});

describe("evaluate", () => {
  it("lets the last matching rule win", () => {
    expect(evaluate("skill", "pdf", fromConfig({ "*": "deny", skill: "allow" })).action).toBe("allow");
    expect(evaluate("skill", "pdf", fromConfig({ skill: "allow", "*": "deny" })).action).toBe("deny");
  });

  it("returns the deciding rule itself", () => {
    const rules = fromConfig({ skill: { "*": "allow", "internal-*": "deny" } });
    expect(evaluate("skill", "internal-docs", rules)).toBe(rules[1]);
    expect(evaluate("skill", "pdf", rules)).toBe(rules[0]);
  });

  it("asks when nothing matches, or there are no rules", () => {
    expect(evaluate("skill", "pdf")).toEqual({ permission: "skill", pattern: "*", action: "ask" });
    expect(evaluate("skill", "pdf", [])).toEqual({ permission: "skill", pattern: "*", action: "ask" });
    expect(evaluate("bash", "ls", fromConfig({ skill: "allow" })).action).toBe("ask");
    expect(evaluate("skill", "pdf", fromConfig({ skill: { "internal-*": "deny" } })).action).toBe("ask");
  });

  it("lets permission `*` match any permission", () => {
    const rules = fromConfig({ "*": "deny" });
    for (const permission of ["skill", "bash", "", "a/b"])
      expect(evaluate(permission, "x", rules).action).toBe("deny");
  });

  it("matches wildcards in the permission name too", () => {
    const rules = fromConfig({ "web*": "deny" });
    expect(evaluate("webfetch", "x", rules).action).toBe("deny");
    expect(evaluate("skill", "x", rules).action).toBe("ask");
  });

  it("merges rulesets in order: later rulesets override earlier ones", () => {
    const defaults = fromConfig({ "*": "allow" });
    const config = fromConfig({ skill: { "internal-*": "deny" } });
    const agent = fromConfig({ skill: { "internal-docs": "allow" } });
    expect(evaluate("skill", "internal-x", defaults, config, agent).action).toBe("deny");
    expect(evaluate("skill", "internal-docs", defaults, config, agent).action).toBe("allow");
    expect(evaluate("skill", "pdf", defaults, config, agent).action).toBe("allow");
    expect(evaluate("skill", "internal-docs", agent, config).action).toBe("deny");
  });
});
