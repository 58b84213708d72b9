import { readFileSync, writeFileSync } from "node:fs";
import { SkillService } from "@skill/core";
import { discoverySources, watchSkills } from "@skill/discovery";
import type { TreeLayout } from "../layout.js";
import type { ChildOutput } from "../protocol.js";

export interface UpdateInput {
  readonly layout: TreeLayout;
  /** SKILL.md files to edit in turn (each has a one-line plain `description:`). */
  readonly targets: readonly string[];
  /** Timed `service.update([file])` calls, each after a real edit. */
  readonly updates: number;
  /** Timed full reloads (`discoverAndLoad`) of the same service. */
  readonly reloads: number;
  /** Edits observed end to end through `watchSkills`; 0 skips the watcher. */
  readonly events: number;
  readonly debounceMs: number;
  /** Longest wait for one `skill.changed` before the edit counts as lost. */
  readonly eventTimeoutMs: number;
}

/** The same file with its description edited (`Edited N.` in front); always a real change. */
export function editDescription(text: string, n: number): string {
  const at = text.search(/^description: /m);
  if (at === -1) throw new Error("no one-line `description:` to edit");
  const value = at + "description: ".length;
  return `${text.slice(0, value)}Edited ${n}. ${text.slice(value)}`;
}

/**
 * The costs of change at one size: after a full load, each edit of one SKILL.md is applied with
 * `service.update([file])` (timed alone), then the service is fully reloaded (timed), then edits
 * go through a real `watchSkills` watcher, timed from the write to `skill.changed` naming the
 * skill. Samples in milliseconds: `update`, `reload`, `event`, `lost` edits whose event never
 * came, `watchReadyMs`. The caller restores the edited files.
 */
export async function run(input: UpdateInput): Promise<ChildOutput> {
  const { layout, targets } = input;
  const originals = targets.map((t) => readFileSync(t, "utf8"));
  let waiting: { name: string; resolve: (at: number | undefined) => void } | undefined;
  const bus = {
    publish(topic: string, payload: unknown) {
      if (topic !== "skill.changed" || !waiting) return;
      const at = performance.now();
      const { added, changed } = payload as { added: readonly string[]; changed: readonly string[] };
      if (changed.includes(waiting.name) || added.includes(waiting.name)) waiting.resolve(at);
    },
  };
  /** The time of the next `skill.changed` naming `name`, or `undefined` after the timeout. */
  const next = (name: string) =>
    new Promise<number | undefined>((resolve) => {
      const timer = setTimeout(() => waiting?.resolve(undefined), input.eventTimeoutMs);
      waiting = {
        name,
        resolve: (at) => {
          clearTimeout(timer);
          waiting = undefined;
          resolve(at);
        },
      };
    });
  const sources = discoverySources({ cwd: layout.cwd, home: layout.home, paths: layout.paths });
  const service = new SkillService({ sources, bus });
  await service.discoverAndLoad();
  const names = targets.map((t) => service.all().find((s) => s.location === t)?.name);
  if (names.some((n) => n === undefined)) throw new Error("an edit target was not loaded");

  let edit = 0;
  const write = (i: number) => {
    const k = i % targets.length;
    writeFileSync(targets[k] as string, editDescription(originals[k] as string, ++edit));
    return k;
  };
  const timed = async (work: () => Promise<unknown>) => {
    const start = performance.now();
    await work();
    return performance.now() - start;
  };

  const update: number[] = [];
  for (let i = 0; i < input.updates; i++) {
    const k = write(i);
    update.push(await timed(() => service.update([targets[k] as string])));
  }
  const reload: number[] = [];
  for (let i = 0; i < input.reloads; i++) reload.push(await timed(() => service.discoverAndLoad()));

  const event: number[] = [];
  let lost = 0;
  let watchReadyMs = Number.NaN;
  if (input.events > 0) {
    const started = performance.now();
    const watcher = watchSkills(service, sources, { debounceMs: input.debounceMs });
    try {
      await watcher.ready;
      watchReadyMs = performance.now() - started;
      for (let i = 0; i < input.events; i++) {
        const arrived = next(names[i % targets.length] as string);
        const start = performance.now();
        write(i);
        const at = await arrived;
        if (at === undefined) lost++;
        else event.push(at - start);
        // Quiet time, so that the next edit is a batch of its own.
        await new Promise((resolve) => setTimeout(resolve, input.debounceMs + 20));
      }
    } finally {
      await watcher.close();
    }
  }
  return { found: service.all().length, samples: { update, reload, event, lost, watchReadyMs } };
}
