import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Runs against the built package (build before testing), as a consumer would load it.
const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const require = createRequire(import.meta.url);
type Api = typeof import("./index.js");

function exercise(api: Api): void {
  const policy = api.createPermissionPolicy({ config: { skill: { "*": "allow", "internal-*": "deny" } } });
  expect(policy.evaluate({ name: "build" }, "skill", "internal-x")).toBe("deny");
  expect(policy.explain({ name: "build" }, "skill", "pdf")).toMatchObject({
    action: "allow",
    layer: "config",
  });
  expect(api.evaluate("skill", "x", api.fromConfig({ skill: "ask" })).action).toBe("ask");
  expect(api.wildcardMatch("ls", "ls *")).toBe(true);
}

describe("built package", { tags: ["built"] }, () => {
  it("works through require() of the CJS entry", () => {
    exercise(require(`${dist}index.cjs`) as Api);
  });

  it("works through import() of the ESM entry", async () => {
    exercise((await import(`${dist}index.js`)) as Api);
  });

  it("throws a SkillError that core recognises, from the CJS entry", async () => {
    const cjs = require(`${dist}index.cjs`) as Api;
    const { SkillError } = await import("@skill/core");
    let error: unknown;
    try {
      cjs.fromConfig({ skill: "maybe" } as never);
    } catch (e) {
      error = e;
    }
    expect(SkillError.isInstance(error)).toBe(true);
  });

  it("exports exactly the public names", async () => {
    const esm = await import(`${dist}index.js`);
    const cjs = require(`${dist}index.cjs`);
    const names = ["createPermissionPolicy", "evaluate", "fromConfig", "wildcardMatch"];
    expect(Object.keys(esm).sort()).toEqual(names);
    expect(Object.keys(cjs).sort()).toEqual(names);
  });
});
