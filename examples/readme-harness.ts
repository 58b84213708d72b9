import { homedir } from "node:os";
import { SkillService } from "@skill/core";
import { discoverySources } from "@skill/discovery";
import { createPermissionPolicy } from "@skill/permissions";
import { createSkillIndex } from "@skill/search";
import { skillTools } from "@skill/tool";
import { aiSdkTools } from "@skill/tool/ai-sdk";
import { generateText, type LanguageModel, stepCountIs } from "ai";

/** One turn of a coding agent that uses skills. `model`: openai("gpt-5"), anthropic("claude-sonnet-4-5")… */
export async function agentTurn(
  model: LanguageModel,
  prompt: string,
  askTheUser: (question: string) => Promise<boolean>,
) {
  // 1. The registry: where agents keep skills (~/.claude, ~/.agents, the project, configured
  //    paths), with permission rules. remoteSource(…) and mcpSource(…) join the sources here.
  const service = new SkillService({
    sources: discoverySources({ cwd: process.cwd(), home: homedir(), paths: ["./team-skills"] }),
    permission: createPermissionPolicy({ config: { skill: { "*": "allow", "release-*": "ask" } } }),
    logger: { warn: (message) => console.warn(`warning: ${message}`) },
  });
  const report = await service.discoverAndLoad(); // nothing throws for a bad skill: see report.failed

  // 2. The tools the model calls: `skill` (its description is the catalog, within 8,000
  //    characters) and `skill_search` (ranked search, @skill/search) whenever the catalog
  //    cannot list every skill. Denied skills are absent everywhere.
  const tools = skillTools(service, {
    agent: { name: "build" },
    search: createSkillIndex([]),
    pinned: ["commit-messages"],
    confirm: async (skill) => askTheUser(`Load the skill ${skill.name}?`), // for `ask` skills
    allowedTools: "pre-approve", // tools.policy("Bash", input): "allow" when a loaded skill lists it
  });

  // 3. The loop: the AI SDK runs the tool calls. The definitions hold still for the session,
  //    so a provider's cached prompt prefix survives every skill the model loads.
  const result = await generateText({
    model,
    system: "You are a coding agent. Load a skill with the skill tool when a task matches it.",
    prompt,
    tools: aiSdkTools(tools),
    stopWhen: stepCountIs(8),
  });

  // 4. Between turns (after a watcher's service.update()): new skills already load and are
  //    found; tell the model in a message. tools.refresh() lays the list out again (a new session).
  const note = tools.changes();
  return { text: result.text, note, failed: report.failed, tools };
}
