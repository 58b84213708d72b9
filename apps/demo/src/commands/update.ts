import { join } from "node:path";
import { createInterface } from "node:readline/promises";
import { auditSkill, diffCapabilities } from "@skill/audit";
import { compareCodeUnits, printable } from "@skill/core";
import { skillFolderName } from "@skill/lock";
import { AGENT_TARGETS } from "../agent-targets.js";
import { formatCapabilityDiff } from "../capability-diff.js";
import type { Context } from "../context.js";
import { UserError } from "../errors.js";
import { agentDir, copySkill, type LockedSkill, readsCanonical, ScopeLock, whatIsAt } from "../install.js";
import { displayPath } from "../output.js";
import { FetchSession, type FileChanges, fileChanges, unifiedDiff } from "../upstream.js";
import { scopeOf } from "./add.js";
import { checkSkill, describeChanges, type SkillCheck } from "./check.js";

export interface UpdateFlags {
  readonly global?: boolean;
  /** Replace without asking (CI). */
  readonly yes?: boolean;
  /** Replace installed copies edited since they were installed. */
  readonly force?: boolean;
}

/** One skill with a newer version, and what the new version changes. */
interface Pending {
  readonly check: SkillCheck & { readonly fetched: NonNullable<SkillCheck["fetched"]> };
  readonly capabilities: string[];
  readonly files: FileChanges;
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

/**
 * `skill update [NAME…]`: for each locked skill (default: all) whose source has a newer
 * version, shows what it changes (capabilities gained and lost, files added, removed and
 * changed, a diff of SKILL.md) and, once confirmed (a y/N prompt on a terminal, `--yes`
 * otherwise), replaces the installed copy atomically and updates the lock. An installed copy
 * edited since it was installed is never replaced without `--force`.
 */
export async function update(ctx: Context, names: string[], flags: UpdateFlags): Promise<number> {
  const scope = scopeOf(ctx, flags);
  const lock = await ScopeLock.load(scope);
  const show = (p: string) => displayPath(p, ctx.cwd, ctx.home);
  if (lock.original === undefined) {
    throw new UserError(`Nothing to update: ${show(lock.file)} does not exist (skill add writes it)`);
  }
  const missing = names.filter((n) => lock.get(n) === undefined);
  if (missing.length > 0) {
    throw new UserError(
      `${missing.map((n) => JSON.stringify(printable(n))).join(", ")} ${missing.length === 1 ? "is" : "are"} not in ${show(lock.file)}; nothing was changed`,
    );
  }
  const wanted = (names.length > 0 ? [...new Set(names)] : lock.names()).sort(compareCodeUnits);
  const { out } = ctx;
  const c = out.color;
  const session = new FetchSession();
  try {
    const checks: SkillCheck[] = [];
    for (const name of wanted) {
      checks.push(await checkSkill(ctx, scope, lock, lock.get(name) as LockedSkill, session));
    }
    // Nothing is put in place while a skill asked for cannot be updated safely. Without names,
    // a skill whose source cannot be read (or that is not installed) is skipped and named.
    const problems: string[] = [];
    const skipped: string[] = [];
    for (const one of checks) {
      const name = printable(one.skill.name);
      const asked = names.length > 0;
      const unusable =
        one.upstream.status === "error"
          ? one.upstream.message
          : one.installed.status === "missing"
            ? `${show(one.path)} is not installed (skill install restores it)`
            : undefined;
      if (unusable !== undefined) (asked ? problems : skipped).push(`${name}: ${unusable}`);
      if (one.installed.status === "edited" && one.upstream.status === "outdated" && !flags.force) {
        const which = one.installed.files ? ` (${describeChanges(one.installed.files)})` : "";
        problems.push(`${name}: ${show(one.path)} was edited since it was installed${which}`);
      }
    }
    if (problems.length > 0) {
      const edited = checks.some((x) => x.installed.status === "edited") && !flags.force;
      throw new UserError(
        `Not updating: ${problems.join("; ")}. Nothing was changed${edited ? "; --force replaces edited copies" : ""}`,
      );
    }
    for (const line of skipped) out.error(`skill: skipped ${line}`);

    const pending: Pending[] = [];
    for (const one of checks) {
      if (one.upstream.status !== "outdated" || one.fetched === undefined) continue;
      if (one.installed.status === "missing") continue;
      const before = await auditSkill(one.path);
      const after = await auditSkill(one.fetched.dir);
      pending.push({
        check: one as Pending["check"],
        capabilities: formatCapabilityDiff(diffCapabilities(before.capabilities, after.capabilities)),
        files: await fileChanges(one.path, one.fetched.dir),
        skillMd: await unifiedDiff(
          join(one.path, "SKILL.md"),
          join(one.fetched.dir, "SKILL.md"),
          "SKILL.md",
          ctx.env,
        ),
      });
    }
    const current = checks
      .filter((x) => x.upstream.status === "current" && x.installed.status !== "missing")
      .map((x) => x.skill.name);

    if (!out.json) {
      for (const name of current) {
        const edited = checks.find((x) => x.skill.name === name)?.installed.status === "edited";
        out.line(
          `${c.green("✓")} ${c.bold(printable(name))} is up to date${edited ? " (edited locally; left as it is)" : ""}`,
        );
      }
      for (const p of pending) {
        const { skill, fetched } = p.check;
        const from = `${printable(skill.source)}${skill.ref ? `#${printable(skill.ref)}` : ""}`;
        const at = fetched.commit ? ` at ${fetched.commit.slice(0, 12)}` : "";
        out.line(
          `${c.cyan("↑")} ${c.bold(printable(skill.name))}: ${from}${at} ${c.dim(`(${(skill.hash ?? "?").slice(0, 12)}… → ${fetched.hash.slice(0, 12)}…)`)}`,
        );
        if (p.check.installed.status === "edited") {
          out.line(`  ${c.yellow("--force")}: replaces the local edits in ${show(p.check.path)}`);
        }
        if (p.capabilities.length > 0) {
          for (const line of p.capabilities) out.line(`  capabilities: ${line}`);
        } else out.line(c.dim("  capabilities: unchanged"));
        const files = describeChanges(p.files);
        if (files !== "") out.line(`  files: ${files}`);
        for (const line of p.skillMd) out.line(`    ${printable(line)}`);
      }
    }

    let accepted = pending;
    const refused: string[] = [];
    if (pending.length > 0 && !flags.yes) {
      if (process.stdin.isTTY !== true) {
        throw new UserError(
          `Not updating ${pending.map((p) => printable(p.check.skill.name)).join(", ")}: no terminal to ask on (stdin is not a TTY); run with --yes to replace without asking. Nothing was changed`,
        );
      }
      accepted = [];
      for (const p of pending) {
        if (await confirm(`Replace ${printable(p.check.skill.name)} with the new version? [y/N] `)) {
          accepted.push(p);
        } else refused.push(p.check.skill.name);
      }
    }

    const now = new Date().toISOString();
    for (const p of accepted) {
      const { skill, fetched, path, installed } = p.check;
      // The copies `--copy` made for agents that read another folder: replaced too (links follow the canonical copy).
      const copies: string[] = [];
      const folder = skillFolderName(skill.name);
      const ours = installed.status === "edited" ? installed.hash : skill.hash;
      for (const agent of AGENT_TARGETS) {
        if (readsCanonical(agent, scope)) continue;
        const target = join(agentDir(agent, scope), folder);
        if (copies.includes(target)) continue;
        const at = await whatIsAt(target, path);
        if (at.kind === "copy" && at.hash !== undefined && (at.hash === skill.hash || at.hash === ours)) {
          copies.push(target);
        }
      }
      await copySkill(fetched.dir, path);
      for (const target of copies) await copySkill(path, target);
      lock.set(
        {
          ...skill,
          hash: fetched.hash,
          ...(fetched.digest === undefined ? {} : { wellKnownDigest: fetched.digest }),
        },
        now,
      );
    }
    if (accepted.length > 0) await lock.save();

    const code = skipped.length > 0 ? 1 : 0;
    if (out.json) {
      out.data(jsonOf(accepted, current, refused, lock.file));
      return code;
    }
    for (const p of accepted) {
      out.line(`${c.green("✓")} updated ${c.bold(printable(p.check.skill.name))} → ${show(p.check.path)}`);
    }
    for (const name of refused) out.line(`${c.dim("kept")} ${printable(name)} (not confirmed)`);
    if (pending.length === 0) out.line(c.dim(`nothing to update; lock: ${show(lock.file)}`));
    else out.line(c.dim(`lock: ${show(lock.file)}`));
    return code;
  } finally {
    await session.close();
  }
}

function jsonOf(
  done: readonly Pending[],
  current: readonly string[],
  kept: readonly string[],
  lockFile: string,
) {
  return {
    updated: done.map((p) => ({
      name: p.check.skill.name,
      path: p.check.path,
      before: p.check.skill.hash,
      computedHash: p.check.fetched.hash,
      ...(p.check.fetched.commit === undefined ? {} : { commit: p.check.fetched.commit }),
      ...(p.check.fetched.digest === undefined ? {} : { wellKnownDigest: p.check.fetched.digest }),
      capabilities: p.capabilities,
      files: p.files,
      skillMd: p.skillMd,
    })),
    current,
    kept,
    lock: lockFile,
  };
}
