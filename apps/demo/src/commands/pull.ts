import { type PullProgress, type PullResult, pull as pullPack } from "@skill/remote";
import cliProgress from "cli-progress";
import type { Context } from "../context.js";
import { displayPath, formatBytes, plural } from "../output.js";

interface Tally {
  files: number;
  bytes: number;
  unchanged: number;
}

/** `skill pull URL…`: downloads remote packs into the cache, with a progress bar on a terminal. */
export async function pull(ctx: Context, urls: readonly string[]): Promise<number> {
  const { out } = ctx;
  const c = out.color;
  const results: {
    url: string;
    result?: PullResult;
    tally: Tally;
    error?: { code: string; message: string };
  }[] = [];
  const showBar = out.isTTY && !out.json;
  for (const url of urls) {
    const tally: Tally = { files: 0, bytes: 0, unchanged: 0 };
    const bar = showBar
      ? new cliProgress.SingleBar(
          {
            format: `${url}  {bar}  {value}/{total} skills  {detail}`,
            hideCursor: true,
            clearOnComplete: true,
          },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
    const onProgress = (event: PullProgress) => {
      if (event.type === "index") bar?.start(event.skills, 0, { detail: "" });
      else if (event.type === "file") {
        if (!event.cached) {
          tally.files++;
          tally.bytes += event.bytes;
        }
        bar?.update({ detail: `${event.skill}/${event.file}` });
      } else if (event.type === "skill") {
        if (event.status === "unchanged") tally.unchanged++;
        bar?.increment(1, { detail: event.name });
      }
    };
    try {
      const result = await pullPack(url, { cacheDir: ctx.cacheDir, logger: ctx.logger, onProgress });
      results.push({ url, result, tally });
    } catch (error) {
      const e = error as { code?: string; message: string };
      results.push({ url, tally, error: { code: e.code ?? "REMOTE_ERROR", message: e.message } });
    } finally {
      bar?.stop();
    }
  }

  const failed = results.filter((r) => r.error).length;
  if (out.json) {
    out.data({
      cacheDir: ctx.cacheDir,
      packs: results.map(({ url, result, tally, error }) =>
        error ? { url, error } : { url, ...result, downloaded: { files: tally.files, bytes: tally.bytes } },
      ),
      warnings: ctx.warnings,
    });
    return failed > 0 ? 1 : 0;
  }
  for (const { url, result, tally, error } of results) {
    if (error) {
      out.error(`${c.red("✗")} ${url}: ${error.message}`);
      continue;
    }
    if (!result) continue;
    const parts = [plural(result.files.length, "skill")];
    if (tally.unchanged > 0) parts.push(`${tally.unchanged} unchanged`);
    if (result.skipped.length > 0) parts.push(c.yellow(`${result.skipped.length} skipped`));
    const transfer = `${plural(tally.files, "file")} downloaded (${formatBytes(tally.bytes)})`;
    const mark = result.fromCache ? c.yellow("!") : c.green("✓");
    out.line(
      `${mark} ${url}: ${parts.join(", ")}; ${result.fromCache ? "offline, served the cached copy" : transfer}`,
    );
    for (const s of result.skipped) out.line(`    skipped ${JSON.stringify(s.name)}: ${s.reason}`);
    if (out.verbose) for (const f of result.files) out.line(`    ${displayPath(f, ctx.cwd, ctx.home)}`);
  }
  out.line(`cache: ${ctx.cacheDir}`);
  if (out.verbose) for (const w of ctx.warnings) out.error(`warning: ${w}`);
  return failed > 0 ? 1 : 0;
}
