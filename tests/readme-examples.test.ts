import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { firstTsBlock, installSpecs } from "../scripts/release-rehearsal.mjs";
import { ROOT } from "./architecture.js";

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly peerDependencies?: Record<string, string>;
}

const published = readdirSync(join(ROOT, "packages"))
  .map((name) => join(ROOT, "packages", name))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest }))
  .filter(({ manifest }) => manifest.private !== true);

/** The package a specifier imports (`@skill/mcp/stdio` → `@skill/mcp`), or undefined for node: built-ins. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith("node:")) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

// The release rehearsal installs what a README's install line names, alone, and runs its first
// ts block; these are the rules that make that possible, checked without a registry.
describe.each(published)("the README of $manifest.name", ({ dir, manifest }) => {
  const readme = readFileSync(join(dir, "README.md"), "utf8");

  it("installs the package with npm in its first sh block", () => {
    expect(installSpecs(readme)).toContain(manifest.name);
  });

  it("opens with a ts block that imports only what the install line names, and declares nothing", () => {
    const block = firstTsBlock(readme) ?? "";
    const specs = installSpecs(readme);
    const imported = [...block.matchAll(/^import [\s\S]*? from "([^"]+)";$/gm)].map((m) => m[1] as string);
    expect(imported.length).toBeGreaterThan(0);
    for (const specifier of imported) {
      const name = packageOf(specifier);
      if (name !== undefined) expect(specs, `${specifier} is imported`).toContain(name);
    }
    expect(block).not.toMatch(/^declare /m);
  });
});
