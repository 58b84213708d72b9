// Shared by the tests of `skill add`, `install`, `check` and `update`: a temp project and
// home, files written with a mode, local git repositories, and the built CLI run with a
// clean environment.
import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, type RunResult, runNode } from "./run-node.js";

export interface World {
  readonly root: string;
  readonly project: string;
  readonly home: string;
  /** The CLI, run in `cwd` (default: the project) with this world's home. */
  skill(args: readonly string[], cwd?: string, env?: NodeJS.ProcessEnv): Promise<RunResult>;
}

const temps: string[] = [];

/** Removes every world made since the last call (an `afterEach`). */
export async function removeWorlds(): Promise<void> {
  for (const dir of temps.splice(0)) await rm(dir, { recursive: true, force: true });
}

export async function world(prefix = "skill-install-"): Promise<World> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  temps.push(root);
  const project = join(root, "project");
  const home = join(root, "home");
  await mkdir(project);
  await mkdir(home);
  return {
    root,
    project,
    home,
    skill: (args, cwd = project, env = {}) => runNode(CLI, args, { cwd, home, env }),
  };
}

export async function put(path: string, text: string, mode?: number): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, text);
  if (mode !== undefined) await chmod(path, mode);
}

export function skillMd(name: string, body = "Body\n", extra = ""): string {
  return `---\nname: ${name}\ndescription: The ${name} skill.\n${extra}---\n${body}`;
}

/** git with a fixed identity and none of the caller's configuration. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.test", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" },
    encoding: "utf8",
  });
}

/** A git repository with skills/pdf (an executable script beside it) and skills/csv at tag v1, and pdf's v2 on `main`. */
export async function taggedRepo(root: string): Promise<string> {
  const dir = join(root, "repo");
  await put(join(dir, "skills", "pdf", "SKILL.md"), skillMd("pdf", "v1\n"));
  await put(join(dir, "skills", "pdf", "scripts", "fill.sh"), "#!/bin/sh\necho fill\n", 0o755);
  await put(join(dir, "skills", "csv", "SKILL.md"), skillMd("csv"));
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "v1");
  git(dir, "tag", "v1");
  await put(join(dir, "skills", "pdf", "SKILL.md"), skillMd("pdf", "v2\n"));
  git(dir, "commit", "-qam", "v2");
  return dir;
}
