import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL(".", import.meta.url));
const COMMANDS = join(SRC, "commands");

/** Non-test sources under `dir`, as paths. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** The files `file` imports by a relative path: `from "…"` (types too), and `import("…")` when `lazy`. */
function imports(file: string, lazy: boolean): string[] {
  const text = readFileSync(file, "utf8");
  const pattern = lazy ? /\bfrom\s+"(\.[^"]+)"|\bimport\(\s*"(\.[^"]+)"\s*\)/g : /\bfrom\s+"(\.[^"]+)"/g;
  return [...text.matchAll(pattern)].map((m) =>
    resolve(dirname(file), (m[1] ?? m[2] ?? "").replace(/\.js$/, ".ts")),
  );
}

/** `commands/<feature>/…` → the feature; undefined outside the command folders. */
function feature(path: string): string | undefined {
  const rel = relative(COMMANDS, path);
  return rel.startsWith("..") ? undefined : rel.split(/[\\/]/)[0];
}

const show = (path: string) => relative(SRC, path).split("\\").join("/");

describe("the CLI's command folders", () => {
  it("no command imports another command: what two share lives outside commands/", () => {
    const crossings = sources(COMMANDS).flatMap((file) =>
      imports(file, true)
        .filter((target) => feature(target) !== undefined && feature(target) !== feature(file))
        .map((target) => `${show(file)} -> ${show(target)}`),
    );
    expect(crossings).toEqual([]);
  });

  it("the command table loads each command on first use: statically only an options.ts that imports nothing", () => {
    const eager = ["cli.ts", "program.ts"].flatMap((name) =>
      imports(join(SRC, name), false).filter((target) => feature(target) !== undefined),
    );
    expect(eager.map(show)).toEqual(["commands/prompt/options.ts"]);
    for (const file of eager) expect(readFileSync(file, "utf8")).not.toMatch(/\bimport\b/);
  });
});
