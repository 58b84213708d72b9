import { printable } from "@skill/core";
import { type Context, createService } from "../context.js";
import { cut, displayPath, plural, table } from "../output.js";

/** `project:/abs/dir/.agents` → `project:.agents` (paths shown relative to cwd or home). */
function sourceLabel(id: string | undefined, ctx: Context): string {
  if (!id) return "";
  const at = id.indexOf(":");
  const rest = id.slice(at + 1);
  return rest.startsWith("/") ? `${id.slice(0, at)}:${displayPath(rest, ctx.cwd, ctx.home) || "."}` : id;
}

/** `skill list`: what this agent sees from here, with shadowed and failed skills summarised. */
export async function list(ctx: Context): Promise<number> {
  const service = createService(ctx);
  const report = await service.discoverAndLoad();
  const all = service.all();
  const visible = service.all(ctx.agent);
  const hidden = all.filter((s) => !visible.includes(s)).map((s) => s.name);
  // What the sources reported (unreadable folders, missing paths, packs served from cache…).
  const sourceWarnings = report.diagnostics.filter((d) => d.source !== undefined && d.severity === "warning");
  const { out } = ctx;

  if (out.json) {
    out.data({
      agent: ctx.agent.name,
      skills: visible.map((s) => ({
        name: s.name,
        description: s.description,
        source: s.source,
        location: s.location,
      })),
      hidden,
      shadowed: report.shadowed,
      failed: report.failed.map((f) => ({ path: f.path, code: f.error.code, message: f.error.message })),
      warnings: sourceWarnings.map((d) => ({
        code: d.code,
        message: d.message,
        path: d.path,
        source: d.source,
      })),
    });
    return 0;
  }

  const c = out.color;
  if (visible.length === 0) {
    out.line(`No skills visible to agent '${ctx.agent.name}' from ${ctx.cwd}.`);
  } else {
    const rows = visible.map((s) => [
      c.bold(printable(s.name)),
      s.description,
      sourceLabel(s.source, ctx),
      displayPath(s.location, ctx.cwd, ctx.home),
    ]);
    // The description gets whatever the other columns leave of the terminal.
    const fixed = Math.max(...rows.map((r) => (r[0] as string).length)) + 2;
    const tail = Math.max(...rows.map((r) => (r[2] as string).length + (r[3] as string).length + 4));
    const room = Math.max(20, out.width - fixed - tail);
    const header = [c.dim("NAME"), c.dim("DESCRIPTION"), c.dim("SOURCE"), c.dim("LOCATION")];
    for (const line of table([
      header,
      ...rows.map((r) => [r[0] as string, cut(r[1] as string, room), r[2] as string, r[3] as string]),
    ])) {
      out.line(line);
    }
  }

  const notes: string[] = [];
  if (hidden.length > 0) notes.push(`${hidden.length} hidden from '${ctx.agent.name}'`);
  if (report.shadowed.length > 0) notes.push(`${report.shadowed.length} shadowed`);
  if (report.failed.length > 0) notes.push(c.red(`${report.failed.length} failed`));
  if (sourceWarnings.length > 0) notes.push(c.yellow(plural(sourceWarnings.length, "warning")));
  out.line();
  const summary = `${plural(visible.length, "skill")}${notes.length > 0 ? `, ${notes.join(", ")}` : ""}`;
  out.line(notes.length > 0 && !out.verbose ? `${summary} — run with --verbose` : summary);
  if (out.verbose) {
    for (const name of hidden)
      out.line(`  hidden   ${name} (denied to agent '${ctx.agent.name}'; see: skill why ${name})`);
    for (const s of report.shadowed) {
      out.line(
        `  shadowed ${s.name}: ${displayPath(s.kept, ctx.cwd, ctx.home)} replaces ${displayPath(s.dropped, ctx.cwd, ctx.home)}`,
      );
    }
    for (const f of report.failed) out.line(`  ${c.red("failed")}   ${printable(f.error.message)}`);
    for (const d of sourceWarnings) out.line(`  ${c.yellow("warning")}  ${printable(d.message)}`);
  }
  return 0;
}
