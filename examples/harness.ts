/**
 * Skills in a model loop, with @skill/tool and the AI SDK: the registry, the tools the model
 * calls, and the loop. Run it from the repository root, after `pnpm build`:
 *
 *   pnpm --filter @skill/examples harness
 *
 * It loads the skills of examples/project and examples/home; the AI SDK's mock model stands in
 * for a real one (`openai("gpt-5")`, `anthropic("claude-sonnet-4-5")`…), so it runs offline.
 * CI runs it too (examples/harness.test.ts).
 */
import { pathToFileURL } from "node:url";
import { type AgentInfo, type SkillMetadata, SkillService } from "@skill/core";
import { discoverySources } from "@skill/discovery";
import { createPermissionPolicy } from "@skill/permissions";
import { createSkillIndex } from "@skill/search";
import { skillTools } from "@skill/tool";
import { aiSdkTools } from "@skill/tool/ai-sdk";
import { generateText, type LanguageModel, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";

export interface HarnessOptions {
  readonly cwd: string;
  readonly home: string;
  readonly model: LanguageModel;
  readonly prompt: string;
  readonly agent?: AgentInfo;
  /** Asks the user before an `ask` skill is loaded; absent, such a skill is refused. */
  readonly confirm?: (skill: SkillMetadata) => Promise<boolean>;
  readonly log?: (line: string) => void;
}

export async function runHarness(options: HarnessOptions) {
  const log = options.log ?? (() => {});
  const agent = options.agent ?? { name: "build" };

  // 1. The registry: where agents keep skills (~/.claude, ~/.agents, the project, configured
  //    paths), with permission rules. remoteSource(…) and mcpSource(…) join the sources here.
  const service = new SkillService({
    sources: discoverySources({ cwd: options.cwd, home: options.home, paths: ["./team-skills"], env: {} }),
    permission: createPermissionPolicy({ config: { skill: { "*": "allow", "release-*": "ask" } } }),
    logger: { warn: (message) => log(`warning: ${message}`) },
  });
  const report = await service.discoverAndLoad(); // nothing throws for a bad skill: see report.failed

  // 2. The tools the model calls: `skill` (its description is the catalog, within 8,000
  //    characters) and `skill_search` (ranked search, @skill/search) whenever the catalog
  //    cannot list every skill. Denied skills are absent everywhere.
  const tools = skillTools(service, {
    agent,
    search: createSkillIndex([]),
    pinned: ["commit-messages"],
    ...(options.confirm ? { confirm: options.confirm } : {}),
  });

  // 3. The loop: the AI SDK runs the tool calls; the tools are read again at every step.
  const result = await generateText({
    model: options.model,
    system: "You are a coding agent. Load a skill with the skill tool when a task matches it.",
    prompt: options.prompt,
    tools: aiSdkTools(tools),
    stopWhen: stepCountIs(8),
    onStepFinish: (step) => {
      for (const call of step.toolCalls) log(`model calls ${call.toolName} ${JSON.stringify(call.input)}`);
      for (const r of step.toolResults)
        log(`  → ${String((r.output as { text: string }).text).split("\n")[0]}`);
    },
  });

  // 4. Between turns (after a watcher's service.update()): tell the model what changed.
  const note = tools.changes();
  if (note) log(note);
  return { text: result.text, steps: result.steps, report, tools };
}

/**
 * A stand-in for a real model: it loads pdf-tools, then release-notes (an `ask` skill), then
 * answers with what it received.
 */
export function demoModel(): MockLanguageModelV3 {
  const plan = [
    { toolName: "skill", input: { name: "pdf-tools" } },
    { toolName: "skill", input: { name: "release-notes" } },
  ];
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const next = plan[step++];
      const usage = {
        inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 10, text: 10, reasoning: undefined },
      };
      if (next) {
        return {
          content: [
            {
              type: "tool-call",
              toolCallId: `call-${step}`,
              toolName: next.toolName,
              input: JSON.stringify(next.input),
            },
          ],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      }
      return {
        content: [{ type: "text", text: "Filled the form with pdf-tools and drafted the release notes." }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const here = new URL(".", import.meta.url);
  const { text, report } = await runHarness({
    cwd: new URL("project/", here).pathname,
    home: new URL("home/", here).pathname,
    model: demoModel(),
    prompt: "Fill in the PDF form in ./forms, then draft the release notes.",
    confirm: async (skill) => {
      console.log(`  (the user is asked to allow "${skill.name}" and says yes)`);
      return true;
    },
    log: (line) => console.log(line),
  });
  console.log(`${report.loaded} skills loaded, ${report.failed.length} failed; the model said: ${text}`);
}
