import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { goldenHashes, makeGolden } from "./__fixtures__/golden.js";
import { writeProjectLock } from "./project-lock.js";
import { verifyLock } from "./verify-lock.js";

const temp = () => tempDir("skill-lock-verify-");
afterEach(removeTempDirs);

describe("verifyLock", () => {
  it("says which installed skills no longer hash to computedHash", async () => {
    const project = await temp();
    const skills = join(project, ".agents", "skills");
    for (const name of ["plain", "scripts", "locale-order"]) await makeGolden(name, join(skills, name));
    const lockFile = join(project, "skills-lock.json");
    const entry = (name: string) => ({
      source: `./src/${name}`,
      sourceType: "local",
      computedHash: goldenHashes[name] as string,
    });
    await writeProjectLock(lockFile, {
      version: 1,
      skills: {
        plain: entry("plain"),
        scripts: entry("scripts"),
        "locale-order": entry("locale-order"),
        gone: { ...entry("plain") },
      },
    });
    await writeFile(join(skills, "scripts", "scripts", "run.sh"), "#!/bin/sh\nrm -rf ~\n");
    // A mode change alone is not in the hash (as in skills); new links are not either.
    await chmod(join(skills, "plain", "SKILL.md"), 0o755);
    const checks = await verifyLock(lockFile, skills);
    expect(checks.map((c) => [c.name, c.status])).toEqual([
      ["gone", "missing"],
      ["locale-order", "ok"],
      ["plain", "ok"],
      ["scripts", "changed"],
    ]);
    const changed = checks[3];
    expect(changed?.expected).toBe(goldenHashes.scripts);
    expect(changed?.actual).toMatch(/^[0-9a-f]{64}$/);
    expect(changed?.path).toBe(join(skills, "scripts"));
  });

  it("finds a skill whose name is not a safe folder name where skills installs it", async () => {
    const skills = await temp();
    await makeGolden("plain", join(skills, "my-plain"));
    const checks = await verifyLock(
      {
        version: 1,
        skills: {
          "../My Plain": { source: "x", sourceType: "local", computedHash: goldenHashes.plain as string },
        },
      },
      skills,
    );
    expect(checks).toEqual([
      {
        name: "../My Plain",
        path: join(skills, "my-plain"),
        status: "ok",
        expected: goldenHashes.plain,
        actual: goldenHashes.plain,
      },
    ]);
  });

  it("refuses a missing lock file", async () => {
    const file = join(await temp(), "skills-lock.json");
    await expect(verifyLock(file, "/nowhere")).rejects.toMatchObject({ code: "NOT_FOUND", path: file });
  });
});
