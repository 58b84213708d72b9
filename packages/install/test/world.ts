// A temporary project, home and source for the installer's tests: real folders, real links,
// real git repositories.
import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface World {
  readonly root: string;
  readonly project: string;
  readonly home: string;
}

const made: string[] = [];

export async function removeWorlds(): Promise<void> {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
}

export async function world(): Promise<World> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "skill-install-lib-")));
  made.push(root);
  const project = join(root, "project");
  const home = join(root, "home");
  await mkdir(project);
  await mkdir(home);
  return { root, project, home };
}

export async function put(path: string, text: string, mode?: number): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  if (mode !== undefined) await chmod(path, mode);
}

export function skillMd(name: string, body = "Body\n"): string {
  return `---\nname: ${JSON.stringify(name)}\ndescription: The ${name} skill.\n---\n${body}`;
}

/** git with a fixed identity and none of the caller's configuration. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.test", ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" },
    encoding: "utf8",
  });
}

/** Commits everything in `dir` as a new repository on `main`. */
export function commitAll(dir: string, message = "init"): void {
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", message);
}

/** The scope options of a project install in `w`. */
export function projectScope(w: World) {
  return {
    cwd: w.project,
    home: w.home,
    scope: "project" as const,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: w.home },
  };
}
