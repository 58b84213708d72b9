import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const here = fileURLToPath(new URL(".", import.meta.url));
const repo = join(here, "..");
const out = join(here, ".readme-check");

/** Every README of the repo: the root's and each package's. */
function readmes(): string[] {
  const packages = join(repo, "packages");
  return [
    join(repo, "README.md"),
    ...readdirSync(packages)
      .map((name) => join(packages, name, "README.md"))
      .filter((file) => {
        try {
          readFileSync(file);
          return true;
        } catch {
          return false;
        }
      }),
  ];
}

/** The ```ts blocks of a markdown text. */
function blocks(text: string): string[] {
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
}

describe("every TypeScript block of a README", { tags: ["slow"], timeout: 120_000 }, () => {
  it("typechecks against the built packages (names a README leaves to the reader come from readme-globals.d.ts)", () => {
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    const written: string[] = [];
    for (const file of readmes()) {
      const slug = relative(repo, file).replace(/[/\\.]/g, "-");
      blocks(readFileSync(file, "utf8")).forEach((block, i) => {
        const name = `${slug}-${i}.ts`;
        // A block is a module of its own (top-level await, its own names).
        writeFileSync(join(out, name), `${block}\nexport {};\n`);
        written.push(name);
      });
    }
    expect(written.length).toBeGreaterThan(15);
    writeFileSync(
      join(out, "tsconfig.json"),
      JSON.stringify({
        extends: "../../tsconfig.base.json",
        compilerOptions: { noUnusedLocals: false, noUnusedParameters: false },
        include: ["*.ts", "../readme-globals.d.ts"],
      }),
    );
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
    const result = spawnSync(process.execPath, [tsc, "-p", join(out, "tsconfig.json")], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "" },
    });
    expect(result.stdout + result.stderr).toBe("");
    expect(result.status).toBe(0);
  });
});
