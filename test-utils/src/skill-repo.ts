import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** What {@link generateSkillRepo} wrote, and what an install of all of it must give. */
export interface SkillRepo {
  /** The repository folder (a git repository on `main`, committed). */
  readonly dir: string;
  /** SKILL.md files written. */
  readonly skills: number;
  /** Names an install must install, sorted. */
  readonly installable: readonly string[];
  /** Names an install must refuse as `DUPLICATE_NAME` (they share a folder), sorted. */
  readonly colliding: readonly string[];
  /** Nested skills: each child's name and its parent's. */
  readonly nested: readonly { readonly child: string; readonly parent: string }[];
  /** SKILL.md paths below the repository, `/`-separated, by name (one per installable name). */
  readonly paths: Readonly<Record<string, string>>;
}

function put(path: string, text: string, mode?: number): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  if (mode !== undefined) chmodSync(path, mode);
}

function skillMd(name: string, body: string): string {
  return `---\nname: ${name}\ndescription: ${body.split("\n")[0]} Use when the task needs ${name}.\n---\n# ${name}\n\n${body}\n`;
}

/**
 * Writes a repository of `count` skills (a multiple of 20, at least 40) as real collections are
 * laid out — `skills/<category>/<name>/` with scripts and references — and commits it: 10% of
 * them are nested (a parent skill holding a child skill's folder), 10% collide (five pairs of
 * names that differ only by case, five names used twice), the rest are plain. Deterministic.
 */
export function generateSkillRepo(dir: string, count = 400): SkillRepo {
  if (count < 40 || count % 20 !== 0)
    throw new Error(`generateSkillRepo: count must be a multiple of 20, at least 40 (got ${count})`);
  const tenth = count / 10;
  const installable: string[] = [];
  const colliding: string[] = [];
  const nested: { child: string; parent: string }[] = [];
  const paths: Record<string, string> = {};
  const skill = (rel: string, name: string, body: string) => {
    put(join(dir, rel, "SKILL.md"), skillMd(name, body));
    return `${rel}/SKILL.md`;
  };
  const plain = count - 2 * tenth;
  for (let i = 0; i < plain; i++) {
    const name = `tool-${String(i).padStart(3, "0")}`;
    const rel = `skills/cat-${i % 10}/${name}`;
    paths[name] = skill(rel, name, `Runs step ${i} of the release.`);
    put(join(dir, rel, "scripts", "run.sh"), `#!/bin/sh\necho ${i}\n`, 0o755);
    if (i % 3 === 0)
      put(join(dir, rel, "references", "guide.md"), `# Guide ${i}\n\n${"Step. ".repeat(i % 50)}\n`);
    installable.push(name);
  }
  for (let k = 0; k < tenth / 2; k++) {
    const parent = `bundle-${k}`;
    const child = `bundle-${k}-part`;
    paths[parent] = skill(`skills/bundles/${parent}`, parent, `A bundle of tools, ${k}.`);
    paths[child] = skill(`skills/bundles/${parent}/${child}`, child, `One part of bundle ${k}.`);
    installable.push(parent, child);
    nested.push({ child, parent });
  }
  for (let k = 0; k < tenth / 4; k++) {
    skill(`skills/upper/Casey-${k}`, `Casey-${k}`, `Upper case ${k}.`);
    skill(`skills/lower/casey-${k}`, `casey-${k}`, `Lower case ${k}.`);
    colliding.push(`Casey-${k}`, `casey-${k}`);
    skill(`skills/a/dup-${k}`, `dup-${k}`, `First copy ${k}.`);
    skill(`skills/b/dup-${k}`, `dup-${k}`, `Second copy ${k}.`);
    colliding.push(`dup-${k}`, `dup-${k}`);
  }
  put(join(dir, "README.md"), `# ${count} skills\n`);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.test", ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GIT_CONFIG_NOSYSTEM: "1" },
      stdio: "ignore",
    });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-qm", "skills");
  const sort = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return {
    dir,
    skills: count,
    installable: installable.sort(sort),
    colliding: colliding.sort(sort),
    nested,
    paths,
  };
}
