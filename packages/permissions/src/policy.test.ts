import type { AgentInfo, PermissionConfig } from "@skill/core";
import { describe, expect, it } from "vitest";
import { skillErrorFrom } from "./__fixtures__/errors.js";
import { createPermissionPolicy } from "./policy.js";

const build: AgentInfo = { name: "build" };

describe("createPermissionPolicy", () => {
  it("allows everything by default", () => {
    const policy = createPermissionPolicy();
    expect(policy.evaluate(build, "skill", "anything")).toBe("allow");
    expect(policy.explain(build, "bash", "rm -rf /")).toEqual({
      action: "allow",
      layer: "defaults",
      rule: { permission: "*", pattern: "*", action: "allow" },
    });
  });

  it("asks when no rule matches, with layer none and no rule", () => {
    const policy = createPermissionPolicy({ defaults: {}, config: { skill: { "internal-*": "deny" } } });
    expect(policy.evaluate(build, "skill", "pdf")).toBe("ask");
    expect(policy.explain(build, "skill", "pdf")).toEqual({ action: "ask", layer: "none" });
  });

  it("merges defaults, then config, then the agent's rules", () => {
    const policy = createPermissionPolicy({
      defaults: { "*": "ask", skill: "allow" },
      config: { skill: { "internal-*": "deny" } },
    });
    const docs: AgentInfo = { name: "docs", permission: { skill: { "internal-docs": "allow" } } };
    expect(policy.explain(build, "skill", "pdf")).toMatchObject({ action: "allow", layer: "defaults" });
    expect(policy.explain(build, "bash", "ls")).toMatchObject({ action: "ask", layer: "defaults" });
    expect(policy.explain(build, "skill", "internal-docs")).toEqual({
      action: "deny",
      layer: "config",
      rule: { permission: "skill", pattern: "internal-*", action: "deny" },
    });
    expect(policy.explain(docs, "skill", "internal-docs")).toEqual({
      action: "allow",
      layer: "agent",
      rule: { permission: "skill", pattern: "internal-docs", action: "allow" },
    });
    expect(policy.evaluate(docs, "skill", "internal-other")).toBe("deny");
  });

  it("lets a broad later rule override a narrow earlier one (last match wins, not most specific)", () => {
    const policy = createPermissionPolicy({ config: { skill: { "internal-*": "deny", "*": "allow" } } });
    expect(policy.evaluate(build, "skill", "internal-x")).toBe("allow");
    const strict = createPermissionPolicy({ config: { skill: "allow", "*": "deny" } });
    expect(strict.explain(build, "skill", "pdf")).toMatchObject({ action: "deny", layer: "config" });
  });

  it("lets an agent's catch-all override config", () => {
    const policy = createPermissionPolicy({ config: { skill: { "pdf-*": "allow" } } });
    const plan: AgentInfo = { name: "plan", permission: { skill: "deny" } };
    expect(policy.explain(plan, "skill", "pdf-fill")).toMatchObject({ action: "deny", layer: "agent" });
    expect(policy.evaluate(build, "skill", "pdf-fill")).toBe("allow");
  });

  it("reads opencode's bare action shorthand in every layer", () => {
    const policy = createPermissionPolicy({ defaults: "deny", config: "ask" });
    expect(policy.explain(build, "skill", "x")).toMatchObject({ action: "ask", layer: "config" });
    const yolo = { name: "yolo", permission: "allow" } as unknown as AgentInfo;
    expect(policy.explain(yolo, "skill", "x")).toMatchObject({ action: "allow", layer: "agent" });
  });

  it("refuses a bad action in config or defaults when created, naming the key path", () => {
    const bad = { skill: { "*": "allow", "internal-*": "nope" } } as unknown as PermissionConfig;
    const error = skillErrorFrom(() => createPermissionPolicy({ config: bad }));
    expect(error.code).toBe("INVALID_FIELD");
    expect(error.field).toBe("permission.skill.internal-*");
    expect(error.message).toContain("permission.skill.internal-*");
    expect(
      skillErrorFrom(() => createPermissionPolicy({ defaults: { "*": 1 } as unknown as PermissionConfig }))
        .field,
    ).toBe("defaults.*");
  });

  it("refuses a bad agent rule at evaluation, never reading it as allow", () => {
    const policy = createPermissionPolicy();
    const agent = { name: "build", permission: { skill: { "internal-*": "dney" } } } as unknown as AgentInfo;
    for (const run of [
      () => policy.evaluate(agent, "skill", "pdf"),
      () => policy.explain(agent, "skill", "x"),
    ]) {
      const error = skillErrorFrom(run);
      expect(error.code).toBe("INVALID_FIELD");
      expect(error.field).toBe("agent.build.permission.skill.internal-*");
    }
  });

  it("compiles an agent's rules once per permission object, and sees a new object", () => {
    const policy = createPermissionPolicy();
    const permission = { skill: { "internal-*": "deny" } } as const;
    const agent: AgentInfo = { name: "build", permission };
    expect(policy.evaluate(agent, "skill", "internal-a")).toBe("deny");
    const a = policy.explain(agent, "skill", "internal-a").rule;
    const b = policy.explain({ name: "other", permission }, "skill", "internal-b").rule;
    expect(a).toBe(b);
    expect(policy.evaluate({ name: "build", permission: { skill: "allow" } }, "skill", "internal-a")).toBe(
      "allow",
    );
  });

  it("hands out rules that cannot change the policy", () => {
    const policy = createPermissionPolicy({ config: { skill: "deny" } });
    const rule = policy.explain(build, "skill", "x").rule;
    expect(Object.isFrozen(rule)).toBe(true);
    expect(Object.isFrozen(createPermissionPolicy({ defaults: {} }).explain(build, "a", "b"))).toBe(true);
  });

  it("implements core's PermissionPolicy port", () => {
    const policy: import("@skill/core").PermissionPolicy = createPermissionPolicy();
    expect(policy.evaluate(build, "skill", "x")).toBe("allow");
  });
});
