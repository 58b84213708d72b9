// Test helpers for child processes that run the built package as another user: uid 65534 may
// not be able to enter the checkout (a clone under a 0700 folder), so the built package and
// what it imports are copied to a folder anyone can read.
import { existsSync } from "node:fs";
import { cp, readFile, realpath } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** This package's folder (where `package.json` and `dist` are). */
const self = fileURLToPath(new URL("..", import.meta.url));

/** The uid and gid tests run children as when they need to be refused something. */
export const NOBODY = 65534;

/**
 * Copies the built `@skill/discovery` and every runtime dependency (`@skill/core` among them)
 * into `<base>/node_modules`, and returns the `file:` URLs of both packages' ESM builds there.
 */
export async function installBuilt(base: string): Promise<{ discovery: string; core: string }> {
  if (!existsSync(join(self, "dist", "index.js"))) {
    throw new Error("run `pnpm --filter @skill/discovery build` first");
  }
  const modules = join(base, "node_modules");
  await copyWithDependencies(self, modules);
  const url = (name: string) => pathToFileURL(join(modules, "@skill", name, "dist", "index.js")).href;
  return { discovery: url("discovery"), core: url("core") };
}

/**
 * Copies the package at `dir` (its package.json and dist) and, recursively, every runtime
 * dependency it resolves, into `modules` as a flat node_modules folder.
 */
export async function copyWithDependencies(
  dir: string,
  modules: string,
  seen = new Set<string>(),
): Promise<void> {
  const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as {
    name: string;
    dependencies?: Record<string, string>;
  };
  if (seen.has(manifest.name)) return;
  seen.add(manifest.name);
  await cp(dir, join(modules, manifest.name), {
    recursive: true,
    filter: (source) => !/[\\/](node_modules|src|\.turbo)([\\/]|$)/.test(source.slice(dir.length)),
  });
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    await copyWithDependencies(await findPackage(dir, name), modules, seen);
  }
}

/** The real folder of dependency `name` as Node would find it from `dir`. */
async function findPackage(dir: string, name: string): Promise<string> {
  for (let at = await realpath(dir); ; at = dirname(at)) {
    const candidate = join(at, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpath(candidate);
    if (dirname(at) === at) throw new Error(`Cannot find ${name} from ${dir}`);
  }
}
