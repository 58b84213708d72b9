import type {
  CallToolResult,
  McpServer,
  RegisteredTool,
  StandardSchemaWithJSON,
} from "@modelcontextprotocol/server";
import type { JsonSchema } from "./schema.js";
import type { SkillTools } from "./tools.js";

/**
 * A JSON Schema the SDK lists as is and never rejects with: the tools check their input
 * themselves and answer a bad one in words the model can act on.
 */
function asIs(schema: JsonSchema): StandardSchemaWithJSON {
  return {
    "~standard": {
      version: 1,
      vendor: "@skill/tool",
      jsonSchema: { input: () => ({ ...schema }), output: () => ({ ...schema }) },
      validate: (value: unknown) => ({ value }),
    },
  } as StandardSchemaWithJSON;
}

/**
 * Serves the skill tools on an MCP server (the SDK's v2 line, `@modelcontextprotocol/server`),
 * for hosts that do not speak SEP-2640: `skill` always, `skill_search` while
 * {@link SkillTools.definitions} offers it. The list holds still for the session, as the
 * definitions do: only when {@link SkillTools.refresh} changes them are the tools updated and
 * the client sent `notifications/tools/list_changed`. Calls follow the registry at once.
 * Call it before `server.connect()`.
 *
 * @example
 * const server = new McpServer({ name: "skills", version: "1.0.0" });
 * registerSkillTools(server, skillTools(service, { agent, search }));
 * await server.connect(new StdioServerTransport());
 */
export function registerSkillTools(server: McpServer, tools: SkillTools): void {
  const registered = new Map<string, RegisteredTool>();
  const describe = (name: string, fallback: string) => () =>
    tools.definitions.find((d) => d.name === name)?.description ?? fallback;
  /** Registers, enables and disables tools as the definitions say; true when that notified the client. */
  const sync = (): boolean => {
    let notified = false;
    const definitions = tools.definitions;
    for (const definition of definitions) {
      const tool = registered.get(definition.name);
      if (!tool) {
        const name = definition.name;
        const made = server.registerTool(
          name,
          { description: definition.description, inputSchema: asIs(definition.inputSchema) },
          async (args: unknown, ctx): Promise<CallToolResult> => {
            const result = await tools.call(name, args, { signal: ctx.mcpReq.signal });
            return {
              content: [{ type: "text", text: result.text }],
              ...(result.isError ? { isError: true } : {}),
            };
          },
        );
        // tools/list reads the description: let it read the current one.
        try {
          const read = describe(name, definition.description);
          Object.defineProperty(made, "description", {
            get: read,
            set: () => {},
            enumerable: true,
            configurable: true,
          });
        } catch {
          // A tool object that cannot take a getter keeps the description sync() gives it.
        }
        registered.set(name, made);
        notified = true;
      } else if (!tool.enabled) {
        tool.enable();
        notified = true;
      }
    }
    for (const [name, tool] of registered) {
      if (tool.enabled && !definitions.some((d) => d.name === name)) {
        tool.disable();
        notified = true;
      }
    }
    return notified;
  };
  sync();
  tools.onChange(() => {
    // A description that changed alone notifies nobody by itself: say it here.
    if (!sync()) server.sendToolListChanged();
  });
}
