import { printable } from "@skill/core";
import { redactUrl, verifyCache } from "@skill/remote";
import type { Context } from "../../context.js";
import { displayPath, plural } from "../../output.js";

const WHAT = {
  modified: "changed since it was pulled",
  missing: "missing",
  extra: "not part of the pulled skill",
  unverifiable: "no digest recorded (pull again to record one)",
} as const;

/**
 * `skill verify [URL]`: re-hashes the cached packs (or one) and lists what changed on disk.
 * Exits 1 when something changed, or when `URL` was never pulled into this cache (nothing to
 * vouch for is not "intact").
 */
export async function run(ctx: Context, url: string | undefined): Promise<number> {
  const report = await verifyCache(ctx.cacheDir, url);
  const { out } = ctx;
  const neverPulled = url !== undefined && report.packs === 0;
  const ok = report.ok && !neverPulled;
  if (out.json) {
    out.data({
      cacheDir: ctx.cacheDir,
      ...report,
      ok,
      problems: report.problems.map((p) => ({ ...p, url: redactUrl(p.url) })),
      ...(neverPulled ? { error: { code: "NOT_FOUND", message: neverPulledMessage(ctx, url) } } : {}),
    });
    return ok ? 0 : 1;
  }
  const c = out.color;
  if (neverPulled) {
    out.error(`${c.red("✗")} ${neverPulledMessage(ctx, url)}`);
    return 1;
  }
  for (const p of report.problems) {
    out.line(
      `${c.red("✗")} ${printable(p.name)}: ${displayPath(printable(p.path), ctx.cwd, ctx.home)} ${WHAT[p.kind]}`,
    );
  }
  const mark = report.ok ? c.green("✓") : c.red("✗");
  const problems = report.problems.length > 0 ? `, ${plural(report.problems.length, "problem")}` : "";
  out.line(`${mark} ${plural(report.checked, "cached skill")} checked${problems}`);
  out.line(`cache: ${ctx.cacheDir}`);
  return report.ok ? 0 : 1;
}

function neverPulledMessage(ctx: Context, url: string): string {
  const shown = printable(redactUrl(url));
  return `${shown} was never pulled into ${ctx.cacheDir}: nothing to verify (run: skill pull ${shown})`;
}
