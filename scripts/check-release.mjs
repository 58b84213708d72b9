#!/usr/bin/env node
// Release checks that `verify` runs: what each published package carries to npm (licence,
// changelog, links), how it states its dependencies, how a release is made, and whether the
// README's install-cost table still matches the packages. Prints one line per problem.
//
//   node scripts/check-release.mjs         check (exit 1 on any problem)
//   node scripts/check-release.mjs --fix   write the package.json fields and LICENSE copies it checks
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { checkReadme, publishedPackages } from "./package-cost.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const fix = process.argv.includes("--fix");
const problems = [];
const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));

const rootManifest = readJson(join(root, "package.json"));
const licence = existsSync(join(root, "LICENSE")) ? readFileSync(join(root, "LICENSE"), "utf8") : undefined;
if (!licence?.startsWith("MIT License")) problems.push("LICENSE: the root needs the MIT licence text");
const repoUrl = rootManifest.repository?.url;
if (typeof repoUrl !== "string") problems.push("package.json: the root needs repository.url");
const web = typeof repoUrl === "string" ? repoUrl.replace(/^git\+/, "").replace(/\.git$/, "") : "";

// A release runs every check first, then publishes.
const release = rootManifest.scripts?.release ?? "";
if (!/\bverify\b.*&&.*changeset publish/.test(release)) {
  problems.push(
    `package.json: "release" must run verify before changeset publish (it is: ${JSON.stringify(release)})`,
  );
}
const changesets = readJson(join(root, ".changeset", "config.json"));
if (changesets.access !== "public")
  problems.push(`.changeset/config.json: "access" must be "public" (scoped packages)`);
if (changesets.privatePackages?.version !== false || changesets.privatePackages?.tag !== false) {
  problems.push(`.changeset/config.json: "privatePackages" must be { "version": false, "tag": false }`);
}

const turbo = readJson(join(root, "turbo.json"));
const releaseDeps = turbo.tasks?.["//#check:release"]?.dependsOn ?? [];

for (const { dir, manifest } of publishedPackages()) {
  const where = `${relative(root, dir)}/package.json`;
  const path = relative(root, dir);
  const expected = {
    license: "MIT",
    repository: { type: "git", url: repoUrl, directory: path },
    homepage: `${web}/tree/main/${path}#readme`,
    bugs: { url: `${web}/issues` },
  };
  let changed = false;
  for (const [key, value] of Object.entries(expected)) {
    if (JSON.stringify(manifest[key]) === JSON.stringify(value)) continue;
    if (fix) {
      manifest[key] = value;
      changed = true;
    } else problems.push(`${where}: "${key}" should be ${JSON.stringify(value)}`);
  }
  for (const entry of ["dist", "CHANGELOG.md"]) {
    if (manifest.files?.includes(entry)) continue;
    if (fix) {
      manifest.files = [...(manifest.files ?? []), entry];
      changed = true;
    } else problems.push(`${where}: "files" must include ${entry}`);
  }
  // Caret ranges let a consumer share one copy of a library; the lockfile pins what we test.
  for (const [name, range] of Object.entries({ ...manifest.dependencies, ...manifest.peerDependencies })) {
    if (range === "workspace:^" || /^\^\d/.test(range)) continue;
    if (fix && /^\d/.test(range)) {
      (manifest.dependencies?.[name] ? manifest.dependencies : manifest.peerDependencies)[name] = `^${range}`;
      changed = true;
    } else
      problems.push(
        `${where}: dependency ${name} is ${JSON.stringify(range)}; use a caret range (or workspace:^)`,
      );
  }
  if (changed) {
    // The links sit after "license", where people look for them.
    const ordered = {};
    for (const [key, value] of Object.entries(manifest)) {
      if (key in expected && key !== "license") continue;
      ordered[key] = value;
      if (key === "license") for (const k of ["repository", "homepage", "bugs"]) ordered[k] = manifest[k];
    }
    writeFileSync(join(dir, "package.json"), `${JSON.stringify(ordered, null, 2)}\n`);
  }
  const copy = join(dir, "LICENSE");
  if (licence && (!existsSync(copy) || readFileSync(copy, "utf8") !== licence)) {
    if (fix) writeFileSync(copy, licence);
    else
      problems.push(`${path}/LICENSE: missing or not the root LICENSE (npm publishes it with the package)`);
  }
  if (!releaseDeps.includes(`${manifest.name}#build`)) {
    problems.push(
      `turbo.json: "//#check:release" must depend on "${manifest.name}#build" (the cost table measures dist)`,
    );
  }
}

try {
  problems.push(...checkReadme());
} catch (error) {
  problems.push(`README.md install-cost table: ${error.message}`);
}

for (const p of problems) console.error(p);
if (problems.length > 0) {
  console.error(`${problems.length} release check(s) failed`);
  process.exit(1);
}
console.log("release checks passed");
