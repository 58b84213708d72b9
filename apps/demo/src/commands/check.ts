import { join } from "node:path";
import { compareCodeUnits, printable, SkillError } from "@skill/core";
import { computedHash, skillFolderName } from "@skill/lock";
import { type Context, remoteUse } from "../context.js";
import { UserError } from "../errors.js";
import { canonicalRoot, type LockedSkill, type Scope, ScopeLock } from "../install.js";
import { displayPath } from "../output.js";
import { type Fetched, FetchSession, type FileChanges, fetchLocked, fileChanges } from "../upstream.js";
import { scopeOf } from "./add.js";

export interface CheckFlags {
  readonly global?: boolean;
  /** Exit 1 when a skill is edited, missing or out of date (default: 0, as a report). */
  readonly exitCode?: boolean;
}

/** The installed copy against the lock. */
export type InstalledState =
  | { readonly status: "ok" }
  | { readonly status: "missing" }
  /** The lock holds no hash of the bytes (a github entry of the global lock). */
  | { readonly status: "unknown" }
  | {
      readonly status: "edited";
      readonly hash: string;
      /** Which files differ from the locked version, when that version could be had to compare. */
      readonly files?: FileChanges;
    };

/** The source now against the lock. */
export type UpstreamState =
  | { readonly status: "current"; readonly commit?: string }
  | {
      readonly status: "outdated";
      readonly hash: string;
      readonly commit?: string;
      readonly digest?: string;
    }
  | { readonly status: "error"; readonly message: string };

/** One locked skill: where it is, how the installed copy and the source compare with the lock. */
export interface SkillCheck {
  readonly skill: LockedSkill;
  /** The canonical copy, `<scope>/.agents/skills/<folder>`. */
  readonly path: string;
  readonly installed: InstalledState;
  readonly upstream: UpstreamState;
  /** The source's skill folder now (while the command runs), with its hash. */
  readonly fetched?: Fetched & { readonly hash: string };
}

/** Hashes the installed copy of `skill`; `unknown` when the lock has nothing to compare with. */
export async function installedHash(scope: Scope, skill: LockedSkill): Promise<string | undefined> {
  const path = join(canonicalRoot(scope), skillFolderName(skill.name));
  try {
    return await computedHash(path);
  } catch (error) {
    if (SkillError.isInstance(error) && error.code === "NOT_FOUND") return undefined;
    throw error;
  }
}

/**
 * Compares one locked skill with what is installed and with its source now. Never writes
 * anything but the temporary checkouts of `session`.
 */
export async function checkSkill(
  ctx: Context,
  scope: Scope,
  lock: ScopeLock,
  skill: LockedSkill,
  session: FetchSession,
): Promise<SkillCheck> {
  const path = join(canonicalRoot(scope), skillFolderName(skill.name));
  const now = await installedHash(scope, skill);
  let fetched: (Fetched & { hash: string }) | undefined;
  let upstream: UpstreamState;
  try {
    const got = await fetchLocked(lock.file, scope.global, skill, ctx.env, remoteUse(ctx), session);
    fetched = { ...got, hash: await computedHash(got.dir) };
    const commit = got.commit === undefined ? {} : { commit: got.commit };
    const sameDigest =
      skill.wellKnownDigest === undefined || got.digest === undefined || got.digest === skill.wellKnownDigest;
    upstream =
      fetched.hash === skill.hash && sameDigest
        ? { status: "current", ...commit }
        : {
            status: "outdated",
            hash: fetched.hash,
            ...commit,
            ...(got.digest === undefined ? {} : { digest: got.digest }),
          };
  } catch (error) {
    upstream = { status: "error", message: (error as Error).message };
  }
  let installed: InstalledState;
  if (now === undefined) installed = { status: "missing" };
  else if (skill.hash === undefined) installed = { status: "unknown" };
  else if (now === skill.hash) installed = { status: "ok" };
  else {
    // Which files differ can be said cheaply when the source still holds the locked version.
    const base = fetched !== undefined && fetched.hash === skill.hash ? fetched.dir : undefined;
    installed = {
      status: "edited",
      hash: now,
      ...(base === undefined ? {} : { files: await fileChanges(base, path) }),
    };
  }
  return { skill, path, installed, upstream, ...(fetched === undefined ? {} : { fetched }) };
}

/** `a.md, b.sh changed; c added` */
export function describeChanges(files: FileChanges): string {
  const parts: string[] = [];
  const list = (paths: readonly string[]) => paths.map(printable).join(", ");
  if (files.changed.length > 0) parts.push(`${list(files.changed)} changed`);
  if (files.added.length > 0) parts.push(`${list(files.added)} added`);
  if (files.removed.length > 0) parts.push(`${list(files.removed)} removed`);
  return parts.join("; ");
}

function sourceText(skill: LockedSkill): string {
  return `${printable(skill.source)}${skill.ref ? `#${printable(skill.ref)}` : ""}`;
}

/**
 * `skill check`: for every locked skill, whether the installed copy still hashes to the lock
 * (edited locally: which files) and whether its source has something newer. Read-only.
 * Exit 0 whatever it finds (a report, as `skill list`); `--exit-code` makes an edited,
 * missing or out-of-date skill exit 1. A source that cannot be reached always exits 1.
 */
export async function check(ctx: Context, flags: CheckFlags): Promise<number> {
  const scope = scopeOf(ctx, flags);
  const lock = await ScopeLock.load(scope);
  const show = (p: string) => displayPath(p, ctx.cwd, ctx.home);
  if (lock.original === undefined) {
    throw new UserError(`Nothing to check: ${show(lock.file)} does not exist (skill add writes it)`);
  }
  const session = new FetchSession();
  const checks: SkillCheck[] = [];
  try {
    for (const name of lock.names().sort(compareCodeUnits)) {
      checks.push(await checkSkill(ctx, scope, lock, lock.get(name) as LockedSkill, session));
    }
  } finally {
    await session.close();
  }
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
