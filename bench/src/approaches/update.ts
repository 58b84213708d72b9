import { readFileSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { SkillService } from "@skill/core";
import { discoverySources, watchSkills } from "@skill/discovery";
import type { TreeLayout } from "../layout.js";
import type { ChildOutput } from "../protocol.js";

/** `targets`: SKILL.md files with a one-line `description:`, edited in turn (the caller restores them). */
export interface UpdateInput
  extends Readonly<Record<"updates" | "reloads" | "events" | "debounceMs" | "eventTimeoutMs", number>> {
  readonly layout: TreeLayout;
  readonly targets: readonly string[];
}

/** The same file with its description edited (`Edited N.` in front); always a real change. */
export function editDescription(text: string, n: number): string {
  const at = text.search(/^description: /m);
  if (at === -1) throw new Error("no one-line `description:` to edit");
  return `${text.slice(0, at + 13)}Edited ${n}. ${text.slice(at + 13)}`;
}

/** `service.update([file])` after each real edit, full reloads, then each write → `skill.changed` (ms). */
export async function run(input: UpdateInput): Promise<ChildOutput> {
  const { layout, targets } = input;
  const originals = targets.map((t) => readFileSync(t, "utf8"));
  let waiting: { name: string; resolve: (at: number) => void } | undefined;
  const bus = {
    publish(topic: string, payload: unknown) {
      if (topic !== "skill.changed" || !waiting) return;
      const at = performance.now();
      const { added, changed } = payload as { added: readonly string[]; changed: readonly string[] };
      if (changed.includes(waiting.name) || added.includes(waiting.name)) waiting.resolve(at);
    },
  };
  const sources = discoverySources({ cwd: layout.cwd, home: layout.home, paths: layout.paths });
  const service = new SkillService({ sources, bus });
  await service.discoverAndLoad();
  const names = targets.map((t) => service.all().find((s) => s.location === t)?.name);
  if (names.some((n) => n === undefined)) throw new Error("an edit target was not loaded");
  let edit = 0;
  const write = (i: number) => {
    const [file, text] = [targets[i % targets.length] as string, originals[i % targets.length] as string];
    writeFileSync(file, editDescription(text, ++edit));
    return file;
  };
  const timed = async (work: () => Promise<unknown>) => {
    const start = performance.now();
    await work();
    return performance.now() - start;
  };
  const update: number[] = [];
  for (let i = 0; i < input.updates; i++) {
    const file = write(i);
    update.push(await timed(() => service.update([file])));
  }
  const reload: number[] = [];
  for (let i = 0; i < input.reloads; i++) reload.push(await timed(() => service.discoverAndLoad()));

  const event: number[] = [];
  let lost = 0;
  const watcher = watchSkills(service, sources, { debounceMs: input.debounceMs });
  try {
    await watcher.ready;
    for (let i = 0; i < input.events; i++) {
      const name = names[i % targets.length] as string;
      const arrived = new Promise<number>((resolve) => (waiting = { name, resolve }));
      const start = performance.now();
      write(i);
      const at = await Promise.race([arrived, sleep(input.eventTimeoutMs, undefined, { ref: false })]);
      waiting = undefined;
      if (at === undefined) lost++;
      else event.push(at - start);
      // Quiet time, so that the next edit is a batch of its own.
      await sleep(input.debounceMs + 20);
    }
  } finally {
    await watcher.close();
  }
  return { found: service.all().length, samples: { update, reload, event, lost } };
}
