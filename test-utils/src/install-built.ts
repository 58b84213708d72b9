// For child processes that run a built package as another user: uid 65534 may not be able to
// enter the checkout (a clone under a 0700 folder), so the built package and what it imports
// are copied to a folder anyone can read.
import { existsSync } from "node:fs";
import { cp, readFile, realpath } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

/** The uid and gid tests run children as when they need to be refused something. */
export const NOBODY = 65534;

/**
 * Copies the built package at `dir` (its package.json and dist) and every runtime dependency
 * it resolves into `<base>/node_modules`, and returns the `file:` URL of its ESM build there.
 */
export async function installBuilt(dir: string, base: string): Promise<string> {
  if (!existsSync(join(dir, "dist", "index.js")))
    throw new Error(`build ${dir} first (the child loads dist)`);
  const modules = join(base, "node_modules");
  const name = await copyWithDependencies(dir, modules);
  return pathToFileURL(join(modules, name, "dist", "index.js")).href;
}

/**
 * Copies the package at `dir` (its package.json and dist) and, recursively, every runtime
 * dependency it resolves, into `modules` as a flat node_modules folder; returns its name.
 */
export async function copyWithDependencies(
  dir: string,
  modules: string,
  seen = new Set<string>(),
): Promise<string> {
  const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as {
    name: string;
    dependencies?: Record<string, string>;
  };
  if (seen.has(manifest.name)) return manifest.name;
  seen.add(manifest.name);
  await cp(dir, join(modules, manifest.name), {
    recursive: true,
    filter: (source) => !/[\\/](node_modules|src|\.turbo)([\\/]|$)/.test(source.slice(dir.length)),
  });
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    await copyWithDependencies(await findPackage(dir, name), modules, seen);
  }
  return manifest.name;
}

/** The real folder of dependency `name` as Node would find it from `dir`. */
async function findPackage(dir: string, name: string): Promise<string> {
  for (let at = await realpath(dir); ; at = dirname(at)) {
    const candidate = join(at, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpath(candidate);
    if (dirname(at) === at) throw new Error(`Cannot find ${name} from ${dir}`);
  }
}
