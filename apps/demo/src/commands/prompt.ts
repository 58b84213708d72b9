import { formatCatalog } from "@skill/format";
import { type Context, createService } from "../context.js";
import { UsageError } from "../errors.js";
import { capList } from "../output.js";

const STYLES = ["xml", "markdown", "json"] as const;
const LOCATIONS = ["path", "file-url"] as const;

/** `skill prompt`: the catalog for the system prompt, and what a budget left out. */
export async function prompt(
  ctx: Context,
  options: { style?: string; budget?: number; location?: string },
): Promise<number> {
  const style = (options.style ?? "xml") as (typeof STYLES)[number];
  if (!STYLES.includes(style))
    throw new UsageError(`--style must be one of ${STYLES.join(", ")}, got '${options.style}'`);
  const locationStyle = (options.location ?? "path") as (typeof LOCATIONS)[number];
  if (!LOCATIONS.includes(locationStyle)) {
    throw new UsageError(`--location must be one of ${LOCATIONS.join(", ")}, got '${options.location}'`);
  }
  const service = createService(ctx);
  await service.discoverAndLoad();
  const skills = service.all(ctx.agent);
  const result = formatCatalog(skills, {
    style,
    locationStyle,
    ...(options.budget === undefined ? {} : { budget: options.budget }),
  });
  if (ctx.out.json) {
    ctx.out.data({ agent: ctx.agent.name, ...result });
    return 0;
  }
  if (result.text) ctx.out.line(result.text);
  // Names come from skill files: capList escapes them, and keeps a long list to one short line.
  const { verbose } = ctx.out;
  if (result.omitted.length > 0) {
    ctx.out.error(
      `budget ${options.budget}: left out ${result.omitted.length} skill(s): ${capList(result.omitted, verbose)}`,
    );
  }
  if (result.truncated.length > 0) {
    ctx.out.error(
      `budget ${options.budget}: shortened the description of ${capList(result.truncated, verbose)}`,
    );
  }
  return 0;
}
