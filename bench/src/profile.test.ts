import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ownerOf, summarizeProfile } from "./profile.js";

describe("profile summaries", () => {
  it("name the owner of a script", () => {
    expect(ownerOf("file:///w/main/packages/core/dist/index.js", "parse")).toBe("@skill/core");
    expect(
      ownerOf("file:///w/node_modules/.pnpm/js-yaml@3.14.2/node_modules/js-yaml/lib/loader.js", "x"),
    ).toBe("js-yaml");
    expect(ownerOf("file:///w/node_modules/.pnpm/@scope+pkg@1.0.0/node_modules/@scope/pkg/a.js", "x")).toBe(
      "@scope/pkg",
    );
    expect(ownerOf("node:fs", "readFileSync")).toBe("node internals");
    expect(ownerOf("", "(garbage collector)")).toBe("(garbage collector)");
  });

  it("add up self time by package and by function", () => {
    const dir = mkdtempSync(join(tmpdir(), "skill-bench-profile-"));
    try {
      const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 9 });
      const file = join(dir, "x.cpuprofile");
      writeFileSync(
        file,
        JSON.stringify({
          nodes: [
            { id: 1, callFrame: frame("(root)", "") },
            {
              id: 2,
              callFrame: frame(
                "load",
                "file:///r/node_modules/.pnpm/js-yaml@3.14.2/node_modules/js-yaml/l.js",
              ),
            },
            { id: 3, callFrame: frame("scan", "file:///r/packages/discovery/dist/index.js") },
          ],
          samples: [2, 2, 3, 2],
          timeDeltas: [1000, 1000, 2000, 1000],
        }),
      );
      const summary = summarizeProfile(file);
      expect(summary.totalMs).toBe(5);
      expect(summary.packages).toEqual([
        { name: "js-yaml", selfMs: 3, share: 0.6 },
        { name: "@skill/discovery", selfMs: 2, share: 0.4 },
      ]);
      expect(summary.functions[0]).toMatchObject({ name: "load (js-yaml/l.js:10)", selfMs: 3 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
