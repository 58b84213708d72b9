import { type LoadReport, printable } from "@skill/core";
import { type SkillChange, watchSkills } from "@skill/discovery";
import type { Context } from "../../context.js";
import { displayPath } from "../../output.js";
import { createService, loadSkills, sources } from "../../service.js";

/** `skill watch`: prints skills appearing, changing and disappearing until Ctrl-C. */
export async function run(ctx: Context): Promise<number> {
  const { out } = ctx;
  const c = out.color;
  const list = sources(ctx);
  const service = createService(ctx, list);
  await loadSkills(ctx, service);
  let names = new Set(service.all(ctx.agent).map((s) => s.name));
  const mark = { added: c.green("+"), changed: c.yellow("~"), removed: c.red("-") } as const;

  // Each batch was applied with service.update: only the changed files were re-read.
  const onChange = (changes: readonly SkillChange[], report: LoadReport) => {
    const now = new Set(service.all(ctx.agent).map((s) => s.name));
    const appeared = [...now].filter((n) => !names.has(n)).sort();
    const vanished = [...names].filter((n) => !now.has(n)).sort();
    names = now;
    // A file that changed and no longer loads (broken YAML, a missing field): say why.
    const paths = new Set(changes.map((change) => change.path));
    const failed = report.failed
      .filter((f) => paths.has(f.path))
      .map((f) => ({ path: f.path, code: f.error.code, message: f.error.message }));
    if (out.json) {
      for (const change of changes) out.jsonLine({ event: change.type, path: change.path });
      out.jsonLine({ event: "skills", skills: [...now].sort(), appeared, vanished, failed });
      return;
    }
    for (const change of changes)
      out.line(`${mark[change.type]} ${displayPath(change.path, ctx.cwd, ctx.home)}`);
    if (appeared.length > 0 || vanished.length > 0) {
      const parts = [
        ...appeared.map((n) => c.green(`+${printable(n)}`)),
        ...vanished.map((n) => c.red(`-${printable(n)}`)),
      ];
      out.line(`  skills: ${parts.join(" ")} (${now.size} now)`);
    }
    for (const f of failed) {
      out.line(`  ${c.red("failed")} ${displayPath(f.path, ctx.cwd, ctx.home)}: ${printable(f.message)}`);
    }
  };

  // Folders on disk are watched; remote packs change when pulled, not on this disk.
  const local = list.filter((source) => Array.isArray((source as { dirs?: unknown }).dirs));
  const watcher = watchSkills(service, local, { onChange, logger: ctx.logger });
  await watcher.ready;
  if (out.json) out.jsonLine({ event: "ready", skills: [...names].sort() });
  else out.line(c.dim(`Watching ${names.size} skills for agent '${ctx.agent.name}'. Ctrl-C to stop.`));

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await watcher.close();
  return 0;
}
