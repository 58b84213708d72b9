#!/usr/bin/env node
// What installing each published package costs a user: the packages npm adds (the package,
// its @skill/* dependencies and every third-party dependency, transitively) and their size
// on disk. Measured from the built packages and the installed node_modules, never typed by
// hand. Writes the table between the package-cost markers of README.md.
//
//   node scripts/package-cost.mjs           print the table
//   node scripts/package-cost.mjs --write   update README.md
//   node scripts/package-cost.mjs --check   exit 1 when README.md is out of date (verify runs this)
//   node scripts/package-cost.mjs --details every package counted, with its size
import { existsSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const README = join(root, "README.md");
const START = "<!-- package-cost:start -->";
const END = "<!-- package-cost:end -->";
/** Sizes may drift this much (a small code change) before the README must be regenerated. */
const TOLERANCE = 0.1;

const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));

/** Published workspace packages: every packages/* that is not private. */
export function publishedPackages() {
  return readdirSync(join(root, "packages"))
    .map((name) => join(root, "packages", name))
    .filter((dir) => existsSync(join(dir, "package.json")))
    .map((dir) => ({ dir, manifest: readJson(join(dir, "package.json")) }))
    .filter(({ manifest }) => manifest.private !== true)
    .sort((a, b) => (a.manifest.name < b.manifest.name ? -1 : 1));
}

function sizeOf(path) {
  const info = statSync(path);
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const name of readdirSync(path)) {
    if (name === "node_modules") continue;
    total += sizeOf(join(path, name));
  }
  return total;
}

/** Bytes npm would unpack for a workspace package: package.json, README, LICENSE, CHANGELOG and `files`. */
function workspaceSize(dir, manifest) {
  const entries = new Set([
    "package.json",
    "README.md",
    "LICENSE",
    "CHANGELOG.md",
    ...(manifest.files ?? []),
  ]);
  let total = 0;
  for (const entry of entries) {
    const path = join(dir, entry);
    if (!existsSync(path)) {
      if (entry === "dist")
        throw new Error(`${relative(root, dir)}/dist is missing: build the package first`);
      continue;
    }
    total += sizeOf(path);
  }
  return total;
}

/** The folder of dependency `name` as Node resolves it from `dir` (real path). */
function resolvePackage(dir, name) {
  for (let at = realpathSync(dir); ; at = dirname(at)) {
    const candidate = join(at, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(at) === at) throw new Error(`Cannot find ${name} from ${dir}`);
  }
}

/** The package and everything a user's install adds with it, keyed by name. */
function closure(dir, found = new Map()) {
  const manifest = readJson(join(dir, "package.json"));
  if (found.has(manifest.name)) return found;
  const workspace = realpathSync(dir).startsWith(realpathSync(join(root, "packages")));
  found.set(manifest.name, workspace ? workspaceSize(dir, manifest) : sizeOf(dir));
  const deps = { ...manifest.dependencies, ...manifest.optionalDependencies };
  for (const name of Object.keys(deps).sort()) {
    const at = (() => {
      try {
        return resolvePackage(dir, name);
      } catch (error) {
        if (manifest.optionalDependencies?.[name]) return undefined;
        throw error;
      }
    })();
    if (at) closure(at, found);
  }
  return found;
}

/** One row per published package: `dependencies` counts packages besides itself. */
export function measure() {
  return publishedPackages().map(({ dir, manifest }) => {
    const all = closure(dir);
    let bytes = 0;
    for (const size of all.values()) bytes += size;
    return { name: manifest.name, dependencies: all.size - 1, bytes, packages: Object.fromEntries(all) };
  });
}

const kB = (bytes) => `${Math.round(bytes / 1000)} kB`;

export function table(rows) {
  return [
    "| package | install | dependencies | install size |",
    "|---|---|---|---|",
    ...rows.map((r) => `| \`${r.name}\` | \`npm i ${r.name}\` | ${r.dependencies} | ${kB(r.bytes)} |`),
  ].join("\n");
}

/** The rows the README holds now, or undefined when it has no table. */
function readmeRows(text) {
  const at = text.indexOf(START);
  const end = text.indexOf(END);
  if (at < 0 || end < at) return undefined;
  return text
    .slice(at, end)
    .split("\n")
    .map((line) => /^\| `([^`]+)` \| `npm i [^`]+` \| (\d+) \| (\d+) kB \|$/.exec(line))
    .filter(Boolean)
    .map((m) => ({ name: m[1], dependencies: Number(m[2]), bytes: Number(m[3]) * 1000 }));
}

/** Why README.md's table does not match the packages, one line each (empty when it does). */
export function checkReadme(rows = measure()) {
  const listed = readmeRows(readFileSync(README, "utf8"));
  if (!listed) return [`README.md has no ${START} … ${END} table`];
  const problems = [];
  for (const row of rows) {
    const entry = listed.find((l) => l.name === row.name);
    if (!entry) problems.push(`${row.name} is not in the README's install-cost table`);
    else if (entry.dependencies !== row.dependencies)
      problems.push(
        `${row.name}: README says ${entry.dependencies} dependencies, it has ${row.dependencies}`,
      );
    else if (Math.abs(entry.bytes - row.bytes) > Math.max(2000, row.bytes * TOLERANCE))
      problems.push(`${row.name}: README says ${kB(entry.bytes)}, it installs ${kB(row.bytes)}`);
  }
  for (const entry of listed) {
    if (!rows.some((r) => r.name === entry.name))
      problems.push(`${entry.name} is in the README table but not published`);
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = measure();
  const mode = process.argv[2];
  if (mode === "--write") {
    const text = readFileSync(README, "utf8");
    const at = text.indexOf(START);
    const end = text.indexOf(END);
    if (at < 0 || end < at) throw new Error(`README.md needs ${START} and ${END} around the table`);
    writeFileSync(README, `${text.slice(0, at + START.length)}\n${table(rows)}\n${text.slice(end)}`);
    console.log("README.md: install-cost table updated");
  } else if (mode === "--check") {
    const problems = checkReadme(rows);
    for (const p of problems) console.error(p);
    if (problems.length > 0) {
      console.error("Run `node scripts/package-cost.mjs --write` to measure again.");
      process.exit(1);
    }
  } else if (mode === "--details") {
    for (const row of rows) console.log(row.name, row.packages);
  } else {
    console.log(table(rows));
  }
}
