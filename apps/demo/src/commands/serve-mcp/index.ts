import { printable } from "@skill/core";
import type { Context } from "../../context.js";
import { loadMcp } from "../../mcp.js";
import { createService, pinnedNames } from "../../service.js";

/**
 * `skill serve-mcp`: serves the skills this agent sees from here to an MCP client on
 * stdin/stdout (SEP-2640) until the client hangs up; with `--tools`, as the `skill` and
 * `skill_search` tools instead, for hosts that do not speak SEP-2640. stdout carries the
 * protocol: nothing else is printed there.
 */
export async function run(
  ctx: Context,
  options: { prefix?: string; tools?: boolean; pin?: readonly string[] },
): Promise<number> {
  const service = createService(ctx);
  const report = await service.discoverAndLoad();
  // A person at a terminal (no MCP client on stdin) is told what is going on, on stderr.
  if (ctx.out.verbose || process.stdin.isTTY === true) {
    const n = service.all(ctx.agent).length;
    const what = options.tools
      ? "the skill tools over"
      : `${n} skill${n === 1 ? "" : "s"} to agent '${ctx.agent.name}' over`;
    ctx.out.error(
      printable(
        `skill serve-mcp: serving ${what} stdio${options.tools ? ` (${n} skills, agent '${ctx.agent.name}')` : ""}`,
      ),
    );
    for (const f of report.failed) ctx.out.error(printable(`  failed  ${f.path}: ${f.error.message}`));
    if (process.stdin.isTTY === true)
      ctx.out.error(
        "an MCP client speaks to it on stdin and stdout (add it to a client's config); Ctrl-C stops it",
      );
  }
  if (options.tools) {
    await serveTools(ctx, service, pinnedNames(ctx, options.pin));
    return 0;
  }
  const { serveStdio } = await loadMcp();
  await serveStdio(service, {
    agent: ctx.agent,
    name: "skill",
    ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
  });
  return 0;
}

/** The skill tools on an MCP SDK v2 server over stdio, until stdin ends. */
async function serveTools(
  ctx: Context,
  service: ReturnType<typeof createService>,
  pinned: string[],
): Promise<void> {
  const [
    { McpServer },
    { StdioServerTransport },
    { skillTools },
    { registerSkillTools },
    { createSkillIndex },
  ] = await Promise.all([
    import("@modelcontextprotocol/server"),
    import("@modelcontextprotocol/server/stdio"),
    import("@skill/tool"),
    import("@skill/tool/mcp"),
    import("@skill/search"),
  ]);
  const server = new McpServer({ name: "skill", version: "0.0.0" });
  // No one on stdio can confirm an `ask` skill: the tools refuse it and say why.
  registerSkillTools(server, skillTools(service, { agent: ctx.agent, search: createSkillIndex([]), pinned }));
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
  });
  const end = () => {
    void server.close();
  };
  process.stdin.once("end", end);
  process.stdin.once("close", end);
  await server.connect(new StdioServerTransport());
  await closed;
  process.stdin.off("end", end);
  process.stdin.off("close", end);
}
