import { readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { formatSkillContent } from "@skill/format";
import { type Context, createService } from "../context.js";
import { UserError } from "../errors.js";

const SKIP = new Set(["node_modules", ".git"]);

/** Files bundled with a skill (absolute paths, sorted), SKILL.md and dotfiles left out. */
export async function bundledFiles(skillDir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.name.startsWith(".") || SKIP.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory() && depth < 8) await walk(path, depth + 1);
      else if (entry.isFile() && !(depth === 0 && entry.name === "SKILL.md")) found.push(path);
    }
  };
  await walk(skillDir, 0);
  return found.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** `skill show NAME`: the block an agent receives when it loads the skill. */
export async function show(ctx: Context, name: string, options: { limit?: number }): Promise<number> {
  const service = createService(ctx);
  await service.discoverAndLoad();
  const skill = service.require(name);
  if (!service.all(ctx.agent).includes(skill)) {
    throw new UserError(
      `Skill "${name}" is denied to agent '${ctx.agent.name}' (see: skill why ${name} --agent ${ctx.agent.name})`,
    );
  }
  const files = await bundledFiles(dirname(skill.location));
  const block = formatSkillContent(
    skill,
    options.limit === undefined ? { files } : { files, limit: options.limit },
  );
  if (ctx.out.json) {
    ctx.out.data({
      name: skill.name,
      description: skill.description,
      location: skill.location,
      source: skill.source,
      files,
      content: block,
    });
  } else {
    ctx.out.line(block);
  }
  return 0;
}
