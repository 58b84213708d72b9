import { join, resolve } from "node:path";
import {
  type Diagnostic,
  type ScanContext,
  SkillError,
  type SkillSource,
  type SourceScan,
} from "@skill/core";
import { urlToDirName } from "./cache-dir.js";
import { type PullOptions, pull } from "./pull.js";

export interface RemoteSourceOptions extends PullOptions {
  /** The source id in reports and on `SkillInfo.source` (default `remote`). */
  readonly id?: string;
}

/**
 * A {@link SkillSource} for `SkillService`: each scan pulls every URL (at once; a pack that
 * cannot be reached serves its cached copy) and returns the cached `SKILL.md` paths, pack by
 * pack in the order of `urls` (a later pack wins a name collision). A URL that fails with no
 * cached copy is reported as a `pack-unavailable` diagnostic and the others still load; when every URL fails,
 * the scan throws instead, so `SkillService` reports it in `LoadReport.failed`.
 *
 * @example
 * const service = new SkillService({
 *   sources: [remoteSource(["https://example.com/.well-known/skills/"], { cacheDir: defaultCacheDir() })],
 * });
 */
export function remoteSource(urls: readonly string[], options: RemoteSourceOptions): SkillSource {
  const { id = "remote", ...pullOptions } = options;
  const list = [...urls];
  return {
    id,
    async scan(ctx: ScanContext = {}): Promise<SourceScan> {
      const signals = [ctx.signal, options.signal].filter((s): s is AbortSignal => s !== undefined);
      const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
      const settled = await Promise.allSettled(
        list.map((url) => pull(url, signal ? { ...pullOptions, signal } : pullOptions)),
      );
      if (signal?.aborted)
        throw new SkillError("ABORTED", `Skill source ${id} was aborted`, { cause: signal.reason });
      const files: string[] = [];
      const dirs: string[] = [];
      const errors: { url: string; error: SkillError }[] = [];
      settled.forEach((s, i) => {
        const url = list[i] as string;
        if (s.status === "fulfilled") {
          files.push(...s.value.files);
          dirs.push(s.value.dir);
          return;
        }
        const error = SkillError.isInstance(s.reason)
          ? s.reason
          : new SkillError("REMOTE_ERROR", `Remote fetch failed: ${url} (${String(s.reason)})`, {
              url,
              cause: s.reason,
            });
        errors.push({ url, error });
        try {
          dirs.push(join(resolve(options.cacheDir), urlToDirName(url)));
        } catch {
          // An invalid URL has no cache folder.
        }
      });
      const diagnostics: Diagnostic[] = errors.map(({ url, error }) => ({
        code: "pack-unavailable",
        severity: "warning",
        message: error.message,
        path: url,
        source: id,
      }));
      if (errors.length === list.length && errors.length > 0) {
        if (errors.length === 1) throw errors[0]?.error;
        throw new SkillError(
          "REMOTE_ERROR",
          `Remote fetch failed: none of the ${errors.length} skill packs could be loaded (${errors.map((e) => e.error.message).join("; ")})`,
          { cause: errors[0]?.error },
        );
      }
      return { entries: files.map((location) => ({ location })), dirs, diagnostics };
    },
  };
}
