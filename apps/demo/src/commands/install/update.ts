import { join } from "node:path";
import { createInterface } from "node:readline/promises";
import { type AuditFinding, auditSkill, diffCapabilities } from "@skill/audit";
import { printable } from "@skill/core";
import { applyPlan, discardPlan, type PlannedSkill, planUpdate } from "@skill/install";
import { formatCapabilityDiff } from "../../capability-diff.js";
import type { Context } from "../../context.js";
import { UserError } from "../../errors.js";
import { displayPath } from "../../output.js";
import { cliError, cliWords, describeChanges, scopeOf, sitePort } from "./installing.js";
import { unifiedDiff } from "./unified-diff.js";

export interface UpdateFlags {
  readonly global?: boolean;
  /** Replace without asking (CI). */
  readonly yes?: boolean;
  /** Replace installed copies edited since they were installed. */
  readonly force?: boolean;
}

/** What one new version changes, for the person deciding. */
interface Review {
  readonly skill: PlannedSkill;
  readonly capabilities: string[];
  /** Audit findings of the new version that the installed one does not have. */
  readonly findings: AuditFinding[];
  readonly skillMd: string[];
}

/** Asks a y/N question on the terminal; anything but y/yes is no. */
async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

const findingKey = (f: AuditFinding) => `${f.rule}\0${f.path}\0${f.message}`;

/** Audits both versions: the capabilities gained and lost, and the findings that are new. */
async function reviewOf(skill: PlannedSkill, ctx: Context): Promise<Review> {
  const installed = skill.replaces?.folder ?? skill.folder;
  const [before, after] = await Promise.all([auditSkill(installed), auditSkill(skill.staged)]);
  const known = new Set(before.findings.map(findingKey));
  return {
    skill,
    capabilities: formatCapabilityDiff(diffCapabilities(before.capabilities, after.capabilities)),
    findings: after.findings.filter((f) => f.rule !== "audit-incomplete" && !known.has(findingKey(f))),
    skillMd: await unifiedDiff(
      join(installed, "SKILL.md"),
      join(skill.staged, "SKILL.md"),
      "SKILL.md",
      ctx.env,
    ),
  };
}

function printReview(ctx: Context, r: Review): void {
  const { out } = ctx;
  const c = out.color;
  const { skill } = r;
  const at = skill.commit ? ` at ${skill.commit.slice(0, 12)}` : "";
  const before = (skill.replaces?.computedHash ?? "?").slice(0, 12);
  out.line(
    `${c.cyan("↑")} ${c.bold(printable(skill.name))}: ${printable(skill.source)}${at} ${c.dim(`(${before}… → ${skill.computedHash.slice(0, 12)}…)`)}`,
  );
  if (skill.edited)
    out.line(
      `  ${c.yellow("--force")}: replaces the local edits in ${displayPath(skill.folder, ctx.cwd, ctx.home)}`,
    );
  if (r.capabilities.length > 0) for (const line of r.capabilities) out.line(`  capabilities: ${line}`);
  else out.line(c.dim("  capabilities: unchanged"));
  for (const f of r.findings) {
    const where = `${printable(f.path)}${f.line === undefined ? "" : `:${f.line}`}`;
    out.line(
      `  ${f.severity === "error" ? c.red("new finding") : c.yellow("new finding")}: ${f.rule} ${where}: ${printable(f.message)}`,
    );
  }
  const files = skill.files ? describeChanges(skill.files) : "";
  if (files !== "") out.line(`  files: ${files}`);
  for (const line of r.skillMd) out.line(`    ${printable(line)}`);
}

/** Who says yes: `--yes`, else the person at the terminal, one skill at a time. */
async function decide(reviews: readonly Review[], flags: UpdateFlags): Promise<string[]> {
  const names = reviews.map((r) => r.skill.name);
  if (reviews.length === 0 || flags.yes) return names;
  if (process.stdin.isTTY !== true) {
    throw new UserError(
      `Not updating ${names.map(printable).join(", ")}: no terminal to ask on (stdin is not a TTY); run with --yes to replace without asking. Nothing was changed`,
    );
  }
  const accepted: string[] = [];
  for (const name of names)
    if (await confirm(`Replace ${printable(name)} with the new version? [y/N] `)) accepted.push(name);
  return accepted;
}

/**
 * `skill update [NAME…]`: @skill/install's plan of the locked skills whose source has a newer
 * version; for each, what it changes — capabilities gained and lost, audit findings that are
 * new (`exfil`, `credential-read`…), files, a diff of SKILL.md — printed before anything is
 * replaced (with `--yes` too), then confirmed on a terminal (or `--yes`) and applied. An
 * installed copy edited since it was installed is never replaced without `--force`.
 */
export async function run(ctx: Context, names: string[], flags: UpdateFlags): Promise<number> {
  const { out } = ctx;
  const c = out.color;
  const show = (p: string) => displayPath(p, ctx.cwd, ctx.home);
  let plan: Awaited<ReturnType<typeof planUpdate>>;
  try {
    plan = await planUpdate({
      ...scopeOf(ctx, flags),
      names,
      force: flags.force === true,
      fetchSite: sitePort(ctx),
    });
  } catch (error) {
    throw cliError(error);
  }
  try {
    // An edited copy with a new version stops the whole update (--force replaces it), and so does
    // a named skill that cannot be updated; without names, the others are skipped and named.
    const stops = plan.refused.filter((r) => r.code === "WRITE_ERROR" || names.length > 0);
    if (stops.length > 0) {
      const edited = stops.some((r) => r.code === "WRITE_ERROR");
      const said = stops.map(
        (r) => `${printable(r.name)}: ${cliWords(r.reason).replace(/; --force replaces it$/, "")}`,
      );
      throw new UserError(
        `Not updating: ${said.join("; ")}. Nothing was changed${edited ? "; --force replaces edited copies" : ""}`,
      );
    }
    for (const r of plan.refused)
      out.error(`skill: skipped ${printable(r.name)}: ${printable(cliWords(r.reason))}`);
    const reviews: Review[] = [];
    for (const skill of plan.skills) reviews.push(await reviewOf(skill, ctx));
    if (!out.json) {
      for (const name of plan.current) {
        const edited = plan.edited.includes(name) ? " (edited locally; left as it is)" : "";
        out.line(`${c.green("✓")} ${c.bold(printable(name))} is up to date${edited}`);
      }
      for (const r of reviews) printReview(ctx, r);
    }
    const accepted = await decide(reviews, flags);
    const report = await applyPlan(plan, { review: async () => accepted });
    const kept = plan.skills.map((s) => s.name).filter((n) => !accepted.includes(n));
    const code = plan.refused.length > 0 ? 1 : 0;
    if (out.json) {
      out.data({
        updated: reviews
          .filter((r) => accepted.includes(r.skill.name))
          .map((r) => ({
            name: r.skill.name,
            path: r.skill.folder,
            before: r.skill.replaces?.computedHash,
            computedHash: r.skill.computedHash,
            ...(r.skill.commit === undefined ? {} : { commit: r.skill.commit }),
            capabilities: r.capabilities,
            findings: r.findings,
            files: r.skill.files,
            skillMd: r.skillMd,
          })),
        current: plan.current,
        kept,
        lock: report.lock,
      });
      return code;
    }
    for (const name of accepted) out.line(`${c.green("✓")} updated ${c.bold(printable(name))}`);
    for (const name of kept) out.line(`${c.dim("kept")} ${printable(name)} (not confirmed)`);
    if (plan.skills.length === 0) out.line(c.dim("nothing to update"));
    if (report.lock) out.line(c.dim(`lock: ${show(report.lock)}`));
    return code;
  } finally {
    await discardPlan(plan);
  }
}
