import { printable } from "@skill/core";
import { type Context, createService } from "../context.js";
import { loadMcp } from "../mcp.js";

/**
 * `skill serve-mcp`: serves the skills this agent sees from here to an MCP client on
 * stdin/stdout (SEP-2640) until the client hangs up. stdout carries the protocol: nothing
 * else is printed there.
 */
export async function serveMcp(ctx: Context, options: { prefix?: string }): Promise<number> {
  const service = createService(ctx);
  const report = await service.discoverAndLoad();
  if (ctx.out.verbose) {
    const n = service.all(ctx.agent).length;
    ctx.out.error(
      printable(
        `skill serve-mcp: serving ${n} skill${n === 1 ? "" : "s"} to agent '${ctx.agent.name}' over stdio`,
      ),
    );
    for (const f of report.failed) ctx.out.error(printable(`  failed  ${f.path}: ${f.error.message}`));
  }
  const { serveStdio } = await loadMcp();
  await serveStdio(service, {
    agent: ctx.agent,
    name: "skill",
    ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
  });
  return 0;
}
