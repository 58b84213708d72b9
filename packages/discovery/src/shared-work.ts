import {
  compareCodeUnits,
  type LoadRules,
  type SharedReads,
  type SkillSource,
  type SourceScan,
  sharedReads,
} from "@skill/core";
import type { Listings } from "./scan-options.js";
import { scanListed, scanPlanOf } from "./sources.js";

/**
 * What the agents' loads may share without changing what any of them finds: a source whose
 * scan plan another agent's source has already run gives that scan, every scan lists a folder
 * once, every load reads and YAML-parses a SKILL.md through one memo (each applies its
 * own rules to the parse; no head cache: the memo makes a second load as cheap), and an agent
 * whose scans and rules are another's takes that agent's load.
 */
export class SharedWork {
  /** Each file read and parsed once for all agents' loads, whatever their rules. */
  readonly reads: SharedReads = sharedReads({ listed: (folder) => this.#names(folder) });
  readonly #scans = new Map<string, Promise<SourceScan>>();
  readonly #loads = new Map<string, Promise<unknown>>();
  /** Each folder is listed once for all agents' scans, whatever their limits, and for `pastLimits`. */
  readonly listings: Listings = new Map();

  /** The names in a folder the scans listed (by its path, or with a trailing `/`), else `undefined`. */
  #names(folder: string): readonly string[] | undefined {
    const listed = this.listings.get(folder) ?? this.listings.get(`${folder}/`);
    return Array.isArray(listed) ? listed.map((entry) => entry.name) : undefined;
  }

  /** The source, reporting each scan it returns; scans with the same plan run once. */
  observe(source: SkillSource, seen: (scan: SourceScan) => void): SkillSource {
    const plan = scanPlanOf(source);
    const key = plan && planKey(source.id, plan.dirs, plan.options);
    return {
      id: source.id,
      ...(source.precedence === undefined ? {} : { precedence: source.precedence }),
      scan: async (ctx) => {
        let pending = key === undefined ? undefined : this.#scans.get(key);
        if (pending === undefined) {
          pending = scanListed(source, ctx, this.listings);
          if (key !== undefined) this.#scans.set(key, pending);
        }
        const scan = await pending;
        seen(scan);
        return scan;
      },
    };
  }

  /**
   * What makes two agents' loads the same: their rules and, in order, each source that gave
   * something (entries, findings, skipped paths, a failure), by its scan plan and precedence.
   * `undefined` when a source has no plan (its scans cannot be told apart).
   */
  loadKey(
    sources: readonly SkillSource[],
    scans: readonly PromiseSettledResult<SourceScan>[],
    rules: LoadRules,
  ): string | undefined {
    const parts: unknown[] = [];
    for (let i = 0; i < sources.length; i++) {
      const source = sources[i] as SkillSource;
      const plan = scanPlanOf(source);
      if (!plan) return undefined;
      const settled = scans[i];
      const scan = settled?.status === "fulfilled" ? settled.value : undefined;
      if (scan && scan.entries.length === 0 && !scan.diagnostics?.length && !scan.skipped?.length) continue;
      parts.push([planKey(source.id, plan.dirs, plan.options), source.precedence ?? null]);
    }
    return JSON.stringify([JSON.stringify(rules, Object.keys(rules).sort()), parts]);
  }

  /** `run()`'s result, once per key (every time without one). */
  load<T>(key: string | undefined, run: () => Promise<T>): Promise<T> {
    if (key === undefined) return run();
    let pending = this.#loads.get(key) as Promise<T> | undefined;
    if (pending === undefined) {
      pending = run();
      this.#loads.set(key, pending);
    }
    return pending;
  }
}

/** What makes two scans the same: the source, its folders and its options (the logger aside). */
function planKey(id: string, dirs: readonly string[], options: object): string {
  const { logger: _logger, signal: _signal, ...rest } = options as Record<string, unknown>;
  const fields = Object.entries(rest).sort(([a], [b]) => compareCodeUnits(a, b));
  return JSON.stringify([id, dirs, fields]);
}
