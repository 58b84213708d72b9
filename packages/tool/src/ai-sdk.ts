import { jsonSchema, type Tool } from "ai";
import type { ToolResult } from "./results.js";
import type { SkillTools } from "./tools.js";

type JSONSchema = Parameters<typeof jsonSchema>[0];

/**
 * The skill tools for the AI SDK (`ai` 6 or 7: `generateText`, `streamText`, agents). The
 * record reads {@link SkillTools.definitions} at every step: the same bytes step after step,
 * until the harness calls `refresh()` (then `skill_search` may come or go with the catalog). A failed call (an unknown name, an `ask` skill refused, bad input)
 * reaches the model as an error result, in words it can act on.
 *
 * @example
 * const result = await generateText({ model, tools: aiSdkTools(skillTools(service, { agent })), stopWhen: stepCountIs(8), prompt });
 */
export function aiSdkTools(tools: SkillTools): Record<string, Tool> {
  const made = new Map<string, Tool>();
  const current = () => tools.definitions;
  const toolFor = (name: string): Tool | undefined => {
    const known = made.get(name);
    if (known) return known;
    const definition = current().find((d) => d.name === name);
    if (!definition) return undefined;
    const tool = {
      get description(): string {
        return current().find((d) => d.name === name)?.description ?? definition.description;
      },
      inputSchema: jsonSchema(definition.inputSchema as JSONSchema),
      execute: (input: unknown, options?: { abortSignal?: AbortSignal }): Promise<ToolResult> =>
        tools.call(name, input, options?.abortSignal ? { signal: options.abortSignal } : {}),
      toModelOutput: ({ output }: { output: ToolResult }) =>
        output.isError
          ? { type: "error-text" as const, value: output.text }
          : { type: "text" as const, value: output.text },
    };
    made.set(name, tool as unknown as Tool);
    return tool as unknown as Tool;
  };
  const offered = (key: string | symbol): key is string =>
    typeof key === "string" && current().some((d) => d.name === key);
  return new Proxy({} as Record<string, Tool>, {
    ownKeys: () => current().map((d) => d.name),
    has: (_target, key) => offered(key),
    getOwnPropertyDescriptor: (_target, key) =>
      offered(key)
        ? { value: toolFor(key), enumerable: true, configurable: true, writable: false }
        : undefined,
    // A tool offered at an earlier step still runs if the model calls it late.
    get: (_target, key) =>
      typeof key === "string" ? (made.get(key) ?? (offered(key) ? toolFor(key) : undefined)) : undefined,
  });
}

/**
 * A `prepareStep` for `generateText`/`streamText` that offers, at each step, only the tools
 * {@link SkillTools.policy} does not deny: in `allowedTools: "restrict"`, once a loaded skill
 * declares `allowed-tools`, the step's `activeTools` are the skill tools and the tools the
 * loaded skills list (a tool listed with a pattern stays, its input is the harness's to check
 * with `policy(tool, input)`). In `ignore` and `pre-approve` nothing is denied and every tool
 * stays. `toolNames` are the keys of the harness's whole `tools` record.
 *
 * @example
 * const all = { ...aiSdkTools(tools), bash, read };
 * await generateText({ model, tools: all, prepareStep: skillPrepareStep(tools, Object.keys(all)), prompt });
 */
export function skillPrepareStep(
  tools: SkillTools,
  toolNames: readonly string[],
): <Name extends string>() => { activeTools: Name[] } {
  const names = [...toolNames];
  // Generic in the names, so it fits `prepareStep` whatever keys the tools record has.
  return <Name extends string>() => ({
    activeTools: names.filter((name) => tools.policy(name).decision !== "deny") as Name[],
  });
}
