import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL(".", import.meta.url));

describe("@skill/mcp reads skills only through core", () => {
  it("imports nothing from node:fs but statSync (the state of a skill's folders, as core's fileKey), and no path rule of its own", () => {
    const found: string[] = [];
    for (const name of readdirSync(SRC)) {
      if (!name.endsWith(".ts") || name.endsWith(".test.ts")) continue;
      const text = readFileSync(`${SRC}${name}`, "utf8");
      for (const match of text.matchAll(
        /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"node:(fs|fs\/promises|path)"/g,
      )) {
        const names = (match[1] ?? "").split(",").map((n) => n.trim().replace(/^type\s+/, ""));
        for (const n of names.filter(Boolean)) found.push(`${name}: ${match[2]}.${n}`);
      }
    }
    expect(found.sort()).toEqual([
      "catalog-cache.ts: path.isAbsolute",
      "catalog.ts: fs.statSync",
      "catalog.ts: path.basename",
      "catalog.ts: path.dirname",
      "catalog.ts: path.isAbsolute",
    ]);
  });
});
