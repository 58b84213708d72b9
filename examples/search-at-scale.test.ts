import { fileURLToPath } from "node:url";
import { memorySource, type SkillMetadata, SkillService } from "@skill/core";
import { discoverySources } from "@skill/discovery";
import { createSkillIndex } from "@skill/search";
import { skillTools } from "@skill/tool";
import { aiSdkTools } from "@skill/tool/ai-sdk";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";

const here = fileURLToPath(new URL(".", import.meta.url));

/** 2,000 skills of other trades, so the catalog cannot list them all. */
function crowd(): Parameters<typeof memorySource>[1] {
  const trades = ["kubernetes", "terraform", "figma", "salesforce", "jira", "grafana", "stripe", "shopify"];
  return Array.from({ length: 2000 }, (_, i) => {
    const trade = trades[i % trades.length] as string;
    const name = `${trade}-helper-${i}`;
    return {
      location: `builtin:${name}`,
      text: `---\nname: ${name}\ndescription: Work with ${trade} projects, number ${i}: setup, review and upkeep.\n---\nbody\n`,
    };
  });
}

/** A model that searches first, then loads the best hit it was given. */
function searchingModel() {
  let step = 0;
  const usage = {
    inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 10, text: 10, reasoning: undefined },
  };
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      step++;
      if (step === 1) {
        return {
          content: [
            {
              type: "tool-call",
              toolCallId: "s",
              toolName: "skill_search",
              input: JSON.stringify({ query: "fill in a PDF form" }),
            },
          ],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      }
      if (step === 2) {
        // The first name the search gave back.
        const results = JSON.stringify(prompt);
        const name = /<name>([a-z0-9-]+)<\/name>/.exec(results)?.[1] ?? "none";
        return {
          content: [
            { type: "tool-call", toolCallId: "l", toolName: "skill", input: JSON.stringify({ name }) },
          ],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      }
      return {
        content: [{ type: "text", text: "done" }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

describe("a catalog too big to list, through the AI SDK", { timeout: 60_000 }, () => {
  it("the model finds pdf-tools with skill_search among 2,000 other skills, then loads it", async () => {
    const service = new SkillService({
      sources: [
        memorySource("builtin", crowd()),
        ...discoverySources({ cwd: `${here}project`, home: `${here}home`, env: {} }),
      ],
    });
    await service.discoverAndLoad();
    const agent = { name: "build" };
    const tools = skillTools(service, { agent, search: createSkillIndex([]) });
    expect(tools.definitions.map((d) => d.name)).toEqual(["skill", "skill_search"]);
    expect(tools.catalog().omitted.length).toBeGreaterThan(1000);
    const result = await generateText({
      model: searchingModel(),
      prompt: "Please fill in this PDF form for me.",
      tools: aiSdkTools(tools),
      stopWhen: stepCountIs(4),
    });
    const outputs: string[] = result.steps.flatMap((s) =>
      s.toolResults.map((r) => (r.output as { text: string }).text),
    );
    expect(outputs[0]).toMatch(
      /^\d+ skills? match(es)? "fill in a PDF form":\n<available_skills>\n {2}<skill>\n {4}<name>pdf-tools<\/name>/,
    );
    expect(outputs[1]).toMatch(/^<skill_content name="pdf-tools">/);
    const all: SkillMetadata[] = service.all(agent);
    expect(all.length).toBeGreaterThan(2000);
  });
});
