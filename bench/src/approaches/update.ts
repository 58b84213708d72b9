import { readFileSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { SkillService } from "@skill/core";
import { discoverySources, watchSkills } from "@skill/discovery";
import type { TreeLayout } from "../tree.js";
import type { LocalOutput } from "./types.js";

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

/** What the update child measured, in milliseconds. */
export interface UpdateSamples {
  readonly update: number[];
  readonly reload: number[];
  /** File written → `skill.changed` published, through a real watcher. */
  readonly event: number[];
  /** Edits whose `skill.changed` never came within the timeout. */
  readonly lost: number;
  /** From `watchSkills(...)` to its `ready`. */
  readonly watchReadyMs: number;
}

/** The same file with its description edited (`Edited N.` in front); always a real change. */
export function editDescription(text: string, n: number): string {
  const at = text.search(/^description: /m);
  if (at === -1) throw new Error("no one-line `description:` to edit");
  const value = at + "description: ".length;
  return `${text.slice(0, value)}Edited ${n}. ${text.slice(value)}`;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolveDelay) => setTimeout(resolveDelay, ms));
}

/** A bus that resolves the next `skill.changed` naming `name`. */
function changeBus() {
  let waiting: { name: string; resolve: (at: number) => void } | undefined;
  return {
    bus: {
      publish(topic: string, payload: unknown) {
        if (topic !== "skill.changed" || !waiting) return;
        const at = performance.now();
        const { added, changed } = payload as { added: readonly string[]; changed: readonly string[] };
        if (changed.includes(waiting.name) || added.includes(waiting.name)) {
          waiting.resolve(at);
          waiting = undefined;
        }
      },
    },
    next(name: string, timeoutMs: number): Promise<number | undefined> {
      return new Promise((resolveNext) => {
        const timer = setTimeout(() => {
          waiting = undefined;
          resolveNext(undefined);
        }, timeoutMs);
        waiting = {
          name,
          resolve: (at) => {
            clearTimeout(timer);
            resolveNext(at);
          },
        };
      });
    },
  };
}

/**
 * The costs of change at one size: after a full load, each edit of one SKILL.md is applied
 * with `service.update([file])` (timed alone), then the same service is fully reloaded
 * (timed), then edits go through a real `watchSkills` watcher and the time from the write to
 * `skill.changed` is taken. The caller restores the edited files afterwards.
 */
export async function run(input: UpdateInput): Promise<LocalOutput & { samples: UpdateSamples }> {
  const { layout, targets } = input;
  const originals = targets.map((t) => readFileSync(t, "utf8"));
  const changes = changeBus();
  const sources = discoverySources({ cwd: layout.cwd, home: layout.home, paths: layout.paths });
  const service = new SkillService({ sources, bus: changes.bus });
  await service.discoverAndLoad();
  const names = targets.map((t) => service.all().find((s) => s.location === t)?.name);
  if (names.some((n) => n === undefined)) throw new Error("an edit target was not loaded");

  let edit = 0;
  const write = (i: number) => {
    const k = i % targets.length;
    writeFileSync(targets[k] as string, editDescription(originals[k] as string, ++edit));
    return k;
  };

  const update: number[] = [];
  for (let i = 0; i < input.updates; i++) {
    const k = write(i);
    const start = performance.now();
    await service.update([targets[k] as string]);
    update.push(performance.now() - start);
  }

  const reload: number[] = [];
  for (let i = 0; i < input.reloads; i++) {
    const start = performance.now();
    await service.discoverAndLoad();
    reload.push(performance.now() - start);
  }

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
        const k = i % targets.length;
        const next = changes.next(names[k] as string, input.eventTimeoutMs);
        const start = performance.now();
        write(i);
        const at = await next;
        if (at === undefined) lost++;
        else event.push(at - start);
        // Quiet time, so that the next edit is a batch of its own.
        await delay(input.debounceMs + 20);
      }
    } finally {
      await watcher.close();
    }
  }
  return { found: service.all().length, samples: { update, reload, event, lost, watchReadyMs } };
}
