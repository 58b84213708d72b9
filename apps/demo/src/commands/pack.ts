import { join, resolve } from "node:path";
import { writeManifest } from "@skill/remote";
import type { Context } from "../context.js";
import { displayPath, plural, table } from "../output.js";

/** `skill pack DIR`: writes DIR/index.json for any static web server. */
export async function pack(ctx: Context, dir: string): Promise<number> {
  const root = resolve(dir); // relative to where the command runs
  const result = await writeManifest(root);
  const { out } = ctx;
  const indexPath = join(root, "index.json");
  if (out.json) {
    out.data({
      path: indexPath,
      manifest: result.manifest,
      failed: result.failed.map((f) => ({ path: f.path, code: f.error.code, message: f.error.message })),
    });
    return result.failed.length > 0 ? 1 : 0;
  }
  const c = out.color;
  out.line(
    `${c.green("✓")} wrote ${displayPath(indexPath, ctx.cwd, ctx.home)}: ${plural(result.manifest.skills.length, "skill")}`,
  );
  const rows = result.manifest.skills.map((s) => [
    s.name,
    c.dim(`${plural(s.files.length, "file")}, version ${s.version ?? "-"}`),
  ]);
  for (const line of table(rows)) out.line(`    ${line}`);
  for (const f of result.failed) out.error(`${c.red("✗")} not listed: ${f.error.message}`);
  return result.failed.length > 0 ? 1 : 0;
}
