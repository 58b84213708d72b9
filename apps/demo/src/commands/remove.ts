import { rm, unlink } from "node:fs/promises";
import { join } from "node:path";
import { printable } from "@skill/core";
import { computedHash, skillFolderName } from "@skill/lock";
import { AGENT_TARGETS, type AgentTarget, agentTarget } from "../agent-targets.js";
import type { Context } from "../context.js";
import { UserError } from "../errors.js";
import { agentDir, canonicalRoot, readsCanonical, ScopeLock, whatIsAt } from "../install.js";
import { displayPath } from "../output.js";

export interface RemoveFlags {
  readonly for?: string[];
  readonly global?: boolean;
  readonly force?: boolean;
}

/**
 * `skill remove NAME…`: the agents' links (and `--copy` copies) that skill installed, and the
 * canonical folder once no other agent uses it. Never a folder it did not install.
 */
export async function remove(ctx: Context, names: string[], flags: RemoveFlags): Promise<number> {
  const scope = {
    global: flags.global === true,
    root: flags.global ? ctx.home : ctx.cwd,
    home: ctx.home,
    env: ctx.env,
  };
  const lock = await ScopeLock.load(scope);
  const show = (p: string) => displayPath(p, ctx.cwd, ctx.home);
  const only: AgentTarget[] | undefined = flags.for?.length ? flags.for.map(agentTarget) : undefined;
  const { out } = ctx;
  const c = out.color;
  const results: { name: string; removed: string[]; kept: string[]; left: string[] }[] = [];

  // Check every name first: nothing is removed when one of them is not skill's to remove.
  const targets = names.map((name) => {
    const locked = lock.get(name) ?? lock.byFolder(skillFolderName(name));
    if (locked === undefined) {
      throw new UserError(
        `${JSON.stringify(printable(name))} was not installed by skill here (it is not in ${show(lock.file)}); nothing was removed`,
      );
    }
    return locked;
  });
  for (const locked of targets) {
    const canonical = join(canonicalRoot(scope), skillFolderName(locked.name));
    if (only === undefined && !flags.force && locked.hash !== undefined) {
      const now = await computedHash(canonical).catch(() => undefined);
      if (now !== undefined && now !== locked.hash) {
        throw new UserError(
          `${show(canonical)} was edited since it was installed (its files no longer hash to the lock); nothing was removed (--force removes it anyway)`,
        );
      }
    }
  }

  for (const locked of targets) {
    const folder = skillFolderName(locked.name);
    const canonical = join(canonicalRoot(scope), folder);
    const removed: string[] = [];
    const left: string[] = [];
    const users: string[] = [];
    const asked = only ?? AGENT_TARGETS;
    const seen = new Set<string>();
    for (const agent of AGENT_TARGETS) {
      const chosen = asked.includes(agent);
      if (readsCanonical(agent, scope)) {
        if (!chosen) users.push(agent.id);
        continue;
      }
      const path = join(agentDir(agent, scope), folder);
      const at = await whatIsAt(path, canonical);
      const ours =
        at.kind === "link-to-canonical" ||
        (at.kind === "copy" && locked.hash !== undefined && at.hash === locked.hash);
      if (!chosen) {
        if (ours) users.push(agent.id);
        continue;
      }
      if (seen.has(path)) continue;
      seen.add(path);
      if (at.kind === "absent") continue;
      if (!ours) {
        left.push(`${show(path)} (not installed by skill)`);
        continue;
      }
      if (at.kind === "link-to-canonical") await unlink(path);
      else await rm(path, { recursive: true, force: true });
      removed.push(show(path));
    }
    const kept: string[] = [];
    if (users.length > 0) {
      kept.push(`${show(canonical)} (still used by ${users.join(", ")})`);
    } else {
      await rm(canonical, { recursive: true, force: true });
      removed.push(show(canonical));
      lock.delete(locked.name);
    }
    results.push({ name: locked.name, removed, kept, left });
  }
  await lock.save();
  if (out.json) {
    out.data({ removed: results, lock: lock.file });
    return 0;
  }
  for (const r of results) {
    out.line(`${c.bold(printable(r.name))}:`);
    for (const p of r.removed) out.line(`  ${c.green("removed")} ${p}`);
    for (const p of r.kept) out.line(`  ${c.dim("kept")} ${p}`);
    for (const p of r.left) out.line(`  ${c.yellow("left")} ${p}`);
  }
  out.line(c.dim(`lock: ${show(lock.file)}`));
  return 0;
}
