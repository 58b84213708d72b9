// What the READMEs' examples take as given: a service, an agent, a model… Each is declared
// here once, with the type a harness would have, so that every other name a block uses must
// come from its own imports.
import type { AgentInfo, SkillService } from "@skill/core";
import type { LanguageModel, Tool } from "ai";

declare global {
  const service: SkillService;
  const agent: AgentInfo;
  const cwd: string;
  const model: LanguageModel;
  const prompt: string;
  const askTheUser: (question: string) => Promise<boolean>;
  /** A harness's own tools, offered beside the skill tools. */
  const bash: Tool;
  const read: Tool;
}
