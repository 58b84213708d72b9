import { printable } from "@skill/core";
import { checkInstalled, type SkillCheck } from "@skill/install";
import type { Context } from "../../context.js";
import { displayPath } from "../../output.js";
import { cliError, describeChanges, scopeOf, sitePort } from "./installing.js";

export interface CheckFlags {
  readonly global?: boolean;
  /** Exit 1 when a skill is edited, missing or out of date (default: 0, as a report). */
  readonly exitCode?: boolean;
}

function sourceText(skill: SkillCheck["skill"]): string {
  return `${printable(skill.source)}${skill.ref ? `#${printable(skill.ref)}` : ""}`;
}

/**
 * `skill check`: for every locked skill, whether the installed copy still hashes to the lock
 * (edited locally: which files) and whether its source has something newer. Read-only.
 * Exit 0 whatever it finds (a report, as `skill list`); `--exit-code` makes an edited,
 * missing or out-of-date skill exit 1. A source that cannot be reached always exits 1.
 */
export async function run(ctx: Context, flags: CheckFlags): Promise<number> {
  const show = (p: string) => displayPath(p, ctx.cwd, ctx.home);
  let checked: Awaited<ReturnType<typeof checkInstalled>>;
  try {
    checked = await checkInstalled({ ...scopeOf(ctx, flags), fetchSite: sitePort(ctx) });
  } catch (error) {
    throw cliError(error);
  }
  const checks = checked.skills;
  const lock = { file: checked.lock };
  const failed = checks.some((c) => c.upstream.status === "error");
  const dirty = checks.some(
    (c) =>
      c.installed.status === "edited" || c.installed.status === "missing" || c.upstream.status === "outdated",
  );
  const code = failed || (flags.exitCode === true && dirty) ? 1 : 0;
  const { out } = ctx;
  if (out.json) {
    out.data({
      lock: lock.file,
      skills: checks.map((c) => ({
        name: c.skill.name,
        source: c.skill.source,
        ...(c.skill.ref === undefined ? {} : { ref: c.skill.ref }),
        path: c.path,
        computedHash: c.skill.hash,
        installed: c.installed,
        upstream: c.upstream,
      })),
    });
    return code;
  }
  const c = out.color;
  for (const one of checks) {
    const lines: string[] = [];
    const { installed, upstream } = one;
    if (installed.status === "edited") {
      const which = installed.files ? `: ${describeChanges(installed.files)}` : "";
      lines.push(
        `${c.yellow("edited")} ${show(one.path)}${which} (skill update leaves it alone without --force)`,
      );
    } else if (installed.status === "missing") {
      lines.push(`${c.yellow("missing")} ${show(one.path)} (skill install restores it)`);
    } else if (installed.status === "unknown") {
      lines.push(c.dim(`${show(lock.file)} holds no hash of its files to check the installed copy against`));
    }
    if (upstream.status === "outdated") {
      const at = upstream.commit ? ` (${sourceText(one.skill)} is at ${upstream.commit.slice(0, 12)})` : "";
      const digest = upstream.digest ? ` (now ${printable(upstream.digest.slice(0, 19))}…)` : "";
      lines.push(
        `${c.cyan("update available")}: its files hash to ${upstream.hash.slice(0, 12)}…, the lock's to ${(one.skill.hash ?? "?").slice(0, 12)}…${at}${digest}`,
      );
    } else if (upstream.status === "error") {
      lines.push(`${c.red("cannot check the source")}: ${printable(upstream.message)}`);
    }
    const ok = lines.length === 0;
    out.line(
      `${ok ? c.green("✓") : c.yellow("!")} ${c.bold(printable(one.skill.name))} ${c.dim(`(${sourceText(one.skill)})`)}${ok ? " up to date, unedited" : ""}`,
    );
    for (const line of lines) out.line(`  ${line}`);
  }
  const edited = checks.filter((x) => x.installed.status === "edited").length;
  const outdated = checks.filter((x) => x.upstream.status === "outdated").length;
  out.line(
    c.dim(
      `${checks.length} locked, ${outdated} with an update, ${edited} edited locally; lock: ${show(lock.file)}`,
    ),
  );
  return code;
}
