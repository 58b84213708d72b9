import { type SkillChange, watchSkills } from "@skill/discovery";
import { type Context, createService, discoveryOptions } from "../context.js";
import { displayPath } from "../output.js";

/** `skill watch`: prints skills appearing, changing and disappearing until Ctrl-C. */
export async function watch(ctx: Context): Promise<number> {
  const { out } = ctx;
  const c = out.color;
  const service = createService(ctx);
  await service.discoverAndLoad();
  let names = new Set(service.all(ctx.agent).map((s) => s.name));
  const mark = { added: c.green("+"), changed: c.yellow("~"), removed: c.red("-") } as const;

  let queue = Promise.resolve();
  const onChanges = (changes: readonly SkillChange[]) => {
    queue = queue.then(async () => {
      await service.discoverAndLoad();
      const now = new Set(service.all(ctx.agent).map((s) => s.name));
      const appeared = [...now].filter((n) => !names.has(n)).sort();
      const vanished = [...names].filter((n) => !now.has(n)).sort();
      names = now;
      if (out.json) {
        for (const change of changes) out.jsonLine({ event: change.type, path: change.path });
        out.jsonLine({ event: "skills", skills: [...now].sort(), appeared, vanished });
        return;
      }
      for (const change of changes)
        out.line(`${mark[change.type]} ${displayPath(change.path, ctx.cwd, ctx.home)}`);
      if (appeared.length > 0 || vanished.length > 0) {
        const parts = [...appeared.map((n) => c.green(`+${n}`)), ...vanished.map((n) => c.red(`-${n}`))];
        out.line(`  skills: ${parts.join(" ")} (${now.size} now)`);
      }
    });
  };

  const watcher = watchSkills(discoveryOptions(ctx), onChanges);
  await watcher.ready;
  if (out.json) out.jsonLine({ event: "ready", skills: [...names].sort() });
  else out.line(c.dim(`Watching ${names.size} skills for agent '${ctx.agent.name}'. Ctrl-C to stop.`));

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await watcher.close();
  await queue;
  return 0;
}
