import { SkillService } from "@skill/core";
import { formatSkillContent } from "@skill/format";
import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import * as aiTest from "ai/test";
import { describe, expect, it } from "vitest";
import { countingSource, settableSource, substringSearch } from "./__fixtures__/skills.js";
import { aiSdkTools, skillPrepareStep } from "./ai-sdk.js";
import { skillTools } from "./tools.js";

// This file runs twice: against `ai` 6 (MockLanguageModelV3) and, through the vitest project
// "ai-7", against `ai` 7 (MockLanguageModelV4). Both run on Node 20.
const Mock = ((aiTest as Record<string, unknown>).MockLanguageModelV4 ??
  aiTest.MockLanguageModelV3) as typeof aiTest.MockLanguageModelV3;

interface Call {
  readonly tools: readonly { name: string; description?: string }[];
  readonly results: readonly { toolName: string; output: { type: string; value: unknown } }[];
}

type Step = (calls: readonly Call[]) => { tool: string; input: unknown } | { text: string };

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A model that decides each step from what it received, and records every request. */
function scriptedModel(step: Step) {
  const calls: Call[] = [];
  const model = new Mock({
    doGenerate: async (options) => {
      const prompt = options.prompt as unknown as { role: string; content: unknown }[];
      const results = prompt
        .filter((m) => m.role === "tool")
        .flatMap((m) => m.content as Call["results"][number][]);
      calls.push({ tools: (options.tools ?? []) as Call["tools"], results });
      const next = step(calls);
      const content =
        "text" in next
          ? [{ type: "text" as const, text: next.text }]
          : [
              {
                type: "tool-call" as const,
                toolCallId: `call-${calls.length}`,
                toolName: next.tool,
                input: JSON.stringify(next.input),
              },
            ];
      return {
        content,
        finishReason: { unified: "text" in next ? "stop" : "tool-calls", raw: undefined },
        usage,
        warnings: [],
      } as never;
    },
  });
  return { model, calls };
}

function firstName(text: string): string {
  return /<name>([^<]+)<\/name>/.exec(text)?.[1] ?? "";
}

const skills = [
  ...Array.from({ length: 400 }, (_, i) => ({
    name: `chore-${String(i).padStart(3, "0")}`,
    description: `Helps with chore number ${i} in a large codebase, step by step.`,
  })),
  { name: "pdf-forms", description: "Fill in PDF forms: read the fields, write the values, flatten." },
];

async function setup() {
  const source = countingSource("global:/home/me/.agents/skills", skills);
  const service = new SkillService({ sources: [source] });
  await service.discoverAndLoad();
  const tools = skillTools(service, { agent: { name: "build" }, search: substringSearch() });
  return { service, tools };
}

describe("aiSdkTools with generateText and the ai mock model", () => {
  it(`runs against ai ${process.env.AI_MAJOR}`, () => {
    expect(new Mock().specificationVersion).toBe(process.env.AI_MAJOR === "7" ? "v4" : "v3");
  });

  it("the model finds a skill with skill_search, loads it with skill, and gets what the tools return", async () => {
    const { service, tools } = await setup();
    expect(tools.catalog().omitted).toContain("pdf-forms");
    const initial = tools.definitions[0]?.description;
    const { model, calls } = scriptedModel((seen) => {
      const last = seen.at(-1)?.results.at(-1);
      if (!last) return { tool: "skill_search", input: { query: "fill pdf form" } };
      if (last.toolName === "skill_search")
        return { tool: "skill", input: { name: firstName(String(last.output.value)) } };
      return { text: "Filled the form." };
    });
    const result = await generateText({
      model,
      tools: aiSdkTools(tools),
      stopWhen: stepCountIs(5),
      prompt: "Fill in the attached PDF form.",
    });
    expect(result.text).toBe("Filled the form.");
    expect(calls).toHaveLength(3);
    // Every step was offered both tools, the catalog in skill's description.
    for (const call of calls) expect(call.tools.map((t) => t.name)).toEqual(["skill", "skill_search"]);
    expect(calls[0]?.tools[0]?.description).toBe(initial);
    // What the model received from skill_search, then from skill.
    const search = calls[1]?.results[0];
    expect(search?.toolName).toBe("skill_search");
    expect(search?.output.type).toBe("text");
    expect(String(search?.output.value)).toMatch(
      /^1 skill matches "fill pdf form":\n<available_skills>\n {2}<skill>\n {4}<name>pdf-forms<\/name>/,
    );
    const loaded = calls[2]?.results.at(-1);
    expect(loaded?.toolName).toBe("skill");
    expect(loaded?.output).toEqual({
      type: "text",
      value: formatSkillContent(await service.read("pdf-forms"), { files: [] }),
    });
  });

  it("ten skills loaded over eleven steps: every step's tool list has the same bytes until refresh()", async () => {
    const { source, state } = settableSource("global:/home/me/.agents/skills");
    state.skills = skills;
    const service = new SkillService({ sources: [source] });
    await service.discoverAndLoad();
    const tools = skillTools(service, { agent: { name: "build" }, search: substringSearch() });
    // The last ten by name: none of them keeps a description in the catalog at first.
    const wanted = skills.slice(-11, -1).map((s) => s.name);
    expect(tools.catalog().omitted).toEqual(expect.arrayContaining(wanted));
    const { model, calls } = scriptedModel((seen) => {
      const name = wanted[seen.length - 1];
      return name === undefined ? { text: "done" } : { tool: "skill", input: { name } };
    });
    const record = aiSdkTools(tools);
    await generateText({ model, tools: record, stopWhen: stepCountIs(12), prompt: "go" });
    expect(calls).toHaveLength(11);
    const loads = (calls.at(-1)?.results ?? []).filter((r) => r.toolName === "skill");
    expect(loads.map((r) => r.output.type)).toEqual(wanted.map(() => "text"));
    const bytes = calls.map((c) => JSON.stringify(c.tools));
    expect(new Set(bytes).size).toBe(1);

    // A skill added meanwhile loads at once, and the list stays put until the harness refreshes.
    state.skills = [...skills, { name: "added-late", description: "Arrived during the session." }];
    await service.discoverAndLoad();
    expect(tools.changes()).toMatch(/^Skills changed since the last note: added added-late\./);
    expect((await tools.call("skill", { name: "added-late" })).isError).toBe(false);
    const again = scriptedModel(() => ({ text: "ok" }));
    await generateText({ model: again.model, tools: record, prompt: "go" });
    expect(JSON.stringify(again.calls[0]?.tools)).toBe(bytes[0]);
    expect(tools.refresh()).toBe(true);
    const after = scriptedModel(() => ({ text: "ok" }));
    await generateText({ model: after.model, tools: record, prompt: "go" });
    expect(JSON.stringify(after.calls[0]?.tools)).not.toBe(bytes[0]);
    expect(after.calls[0]?.tools[0]?.description).toBe(tools.definitions[0]?.description);
  });

  it("restrict: once a skill declaring allowed-tools is loaded, a step offers and runs only what it lists", async () => {
    const guarded = [
      ...skills.slice(0, 3),
      { name: "git-review", description: "Review a diff.", extra: "allowed-tools: Read, Bash(git diff:*)\n" },
    ];
    const service = new SkillService({ sources: [countingSource("project:/repo/.agents/skills", guarded)] });
    await service.discoverAndLoad();
    const tools = skillTools(service, {
      agent: { name: "build" },
      allowedTools: "restrict",
      toolNames: { bash: "Bash", read: "Read", write: "Write" },
    });
    const ran: string[] = [];
    const harness = (name: string) =>
      tool({
        description: `The ${name} tool.`,
        inputSchema: jsonSchema({ type: "object", properties: { command: { type: "string" } } }),
        execute: async (input: unknown) => {
          ran.push(`${name} ${JSON.stringify(input)}`);
          return "done";
        },
      });
    const all = {
      ...aiSdkTools(tools),
      bash: harness("bash"),
      read: harness("read"),
      write: harness("write"),
    };
    const { model, calls } = scriptedModel((seen) => {
      if (seen.length === 1) return { tool: "write", input: {} };
      if (seen.length === 2) return { tool: "skill", input: { name: "git-review" } };
      if (seen.length === 3) return { tool: "write", input: {} };
      if (seen.length === 4) return { tool: "bash", input: { command: "git diff HEAD" } };
      return { text: "reviewed" };
    });
    await generateText({
      model,
      tools: all,
      prepareStep: skillPrepareStep(tools, Object.keys(all)),
      stopWhen: stepCountIs(6),
      prompt: "review my change",
    });
    const offered = calls.map((c) => c.tools.map((t) => t.name).sort());
    // Before the load nothing is restricted; after it, write is no longer offered...
    expect(offered[0]).toEqual(["bash", "read", "skill", "write"]);
    expect(offered[2]).toEqual(["bash", "read", "skill"]);
    // ...and a call to it anyway does not run: the model gets an error result instead.
    expect(ran).toEqual(["write {}", 'bash {"command":"git diff HEAD"}']);
    const refused = calls[3]?.results.filter((r) => r.toolName === "write").at(-1);
    expect(refused?.output.type).toBe("error-text");
    expect(String(refused?.output.value)).toMatch(
      /Model tried to call unavailable tool 'write'\. Available tools: skill, bash, read\.$/,
    );
    expect(tools.policy("write").decision).toBe("deny");
    expect(tools.policy("bash", { command: "git push" }).decision).toBe("deny");
    expect(tools.policy("bash", { command: "git diff --stat" })).toEqual({
      decision: "allow",
      reason: "pre-approved by the skill 'git-review' (Bash(git diff:*))",
    });
  });

  it("pre-approve: a listed tool is allow, the rest ask, and every tool stays offered", async () => {
    const guarded = [{ name: "reader", description: "Reads.", extra: "allowed-tools: Read Grep\n" }];
    const service = new SkillService({ sources: [countingSource("project:/repo/.agents/skills", guarded)] });
    await service.discoverAndLoad();
    const tools = skillTools(service, {
      agent: { name: "build" },
      allowedTools: "pre-approve",
      toolNames: { read: "Read", bash: "Bash" },
    });
    expect(tools.policy("read").decision).toBe("ask");
    expect((await tools.call("skill", { name: "reader" })).isError).toBe(false);
    expect(tools.policy("read")).toEqual({
      decision: "allow",
      reason: "pre-approved by the skill 'reader' (Read)",
    });
    expect(tools.policy("bash")).toEqual({
      decision: "ask",
      reason: "not pre-approved: the harness's default",
    });
    expect(skillPrepareStep(tools, ["skill", "read", "bash"])()).toEqual({
      activeTools: ["skill", "read", "bash"],
    });
  });

  it("a failed call reaches the model as an error result, in words it can act on", async () => {
    const { tools } = await setup();
    const { model, calls } = scriptedModel((seen) =>
      seen.length === 1 ? { tool: "skill", input: { name: "pdf-form" } } : { text: "ok" },
    );
    await generateText({ model, tools: aiSdkTools(tools), stopWhen: stepCountIs(3), prompt: "go" });
    expect(calls[1]?.results[0]?.output).toEqual({
      type: "error-text",
      value: 'No skill named "pdf-form"; similar: pdf-forms.',
    });
  });

  it("offers only skill when everything fits, and follows when that changes", async () => {
    const source = countingSource("project:/repo/.agents/skills", skills.slice(0, 3));
    const service = new SkillService({ sources: [source] });
    await service.discoverAndLoad();
    const record = aiSdkTools(skillTools(service, { agent: { name: "build" }, search: substringSearch() }));
    expect(Object.keys(record)).toEqual(["skill"]);
    expect("skill_search" in record).toBe(false);
    const big = new SkillService({ sources: [countingSource("global:/h", skills)] });
    await big.discoverAndLoad();
    const both = aiSdkTools(skillTools(big, { agent: { name: "build" }, search: substringSearch() }));
    expect(Object.keys(both)).toEqual(["skill", "skill_search"]);
    expect(typeof both.skill_search?.execute).toBe("function");
  });
});
