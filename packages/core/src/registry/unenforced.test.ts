import { describe, expect, it } from "vitest";
import type { LogFields } from "../spec/logging.js";
import type { AgentInfo } from "../spec/service-options.js";
import { memorySource } from "./memory-source.js";
import { SkillService } from "./service.js";

const skills = memorySource("builtin", [
  { location: "builtin:pdf", text: "---\nname: pdf\ndescription: Fill PDF forms.\n---\n" },
  { location: "builtin:deploy", text: "---\nname: deploy\ndescription: Deploy.\n---\n" },
]);
const review: AgentInfo = { name: "review", permission: { skill: { deploy: "deny" } } };

describe("an agent's own rules without a permission policy", () => {
  it("are said once per agent on the logger: nothing applies them, so nothing is hidden", async () => {
    const warnings: { message: string; fields?: LogFields }[] = [];
    const service = new SkillService({
      sources: [skills],
      logger: { warn: (message, fields) => warnings.push({ message, ...(fields ? { fields } : {}) }) },
    });
    await service.discoverAndLoad();
    expect(service.all(review).map((s) => s.name)).toEqual(["deploy", "pdf"]);
    expect(service.get("deploy", review)?.name).toBe("deploy");
    service.all({ name: "build" }); // no rules of its own: nothing to say
    expect(warnings).toEqual([
      {
        message: expect.stringMatching(
          /^Agent "review" has permission rules, but this SkillService has no permission policy/,
        ),
        fields: { code: "permission-unenforced" },
      },
    ]);
  });

  it("are applied, and nothing said, with a policy", async () => {
    const warnings: string[] = [];
    const service = new SkillService({
      sources: [skills],
      permission: {
        evaluate: (agent, _p, pattern) =>
          agent.name === "review" && pattern === "deploy" ? "deny" : "allow",
      },
      logger: { warn: (message) => warnings.push(message) },
    });
    await service.discoverAndLoad();
    expect(service.all(review).map((s) => s.name)).toEqual(["pdf"]);
    expect(warnings).toEqual([]);
  });
});
