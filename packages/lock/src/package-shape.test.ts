import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { goldenHashes, makeGolden } from "./__fixtures__/golden.js";

// Runs against the built package (build before testing), as a consumer would load it.
const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const require = createRequire(import.meta.url);
type Api = typeof import("./index.js");

async function exercise(api: Api): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "skill-lock-shape-"));
  try {
    await makeGolden("locale-order", join(dir, "skills", "locale-order"));
    expect(await api.computedHash(join(dir, "skills", "locale-order"))).toBe(goldenHashes["locale-order"]);
    const folder = await api.hashFolder(join(dir, "skills", "locale-order"), { keepBytes: 1 << 20 });
    expect(folder.hash).toBe(goldenHashes["locale-order"]);
    expect(folder.files?.map((f) => f.path)).toEqual(
      await api.hashedFiles(join(dir, "skills", "locale-order")),
    );
    const file = join(dir, api.PROJECT_LOCK_FILE);
    await api.writeProjectLock(file, {
      version: 1,
      skills: {
        "locale-order": {
          source: join(dir, "skills", "locale-order"),
          sourceType: "local",
          computedHash: goldenHashes["locale-order"] as string,
        },
      },
    });
    expect(JSON.parse(await readFile(file, "utf8")).skills["locale-order"].source).toBe(
      "./skills/locale-order",
    );
    const lock = await api.readProjectLock(file);
    expect(lock?.version).toBe(1);
    expect((await api.verifyLock(file, join(dir, "skills"))).map((c) => c.status)).toEqual(["ok"]);
    expect(api.skillFolderName("A B")).toBe("a-b");
    expect(api.globalLockPath({ home: "/h" })).toBe("/h/.agents/.skill-lock.json");
    await api.writeGlobalLock(join(dir, "g.json"), { version: 3, skills: {}, dismissed: {} });
    expect(await api.readGlobalLock(join(dir, "g.json"))).toEqual({ version: 3, skills: {}, dismissed: {} });
    const broken = join(dir, "g.json");
    await api.writeGlobalLock(broken, { version: 3, skills: {} });
    await expect(api.readProjectLock(broken)).rejects.toMatchObject({ code: "INVALID_FIELD" });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("built package", { tags: ["built"] }, () => {
  it("works through require() of the CJS entry", async () => {
    await exercise(require(`${dist}index.cjs`) as Api);
  });

  it("works through import() of the ESM entry", async () => {
    await exercise((await import(`${dist}index.js`)) as Api);
  });

  it("exports exactly the public names", async () => {
    const names = [
      "PROJECT_LOCK_FILE",
      "computedHash",
      "formatProjectLock",
      "globalLockPath",
      "hashFolder",
      "hashedFiles",
      "hashedSkillFiles",
      "lockedSourcePath",
      "portableSource",
      "readGlobalLock",
      "readProjectLock",
      "skillFolderName",
      "verifyLock",
      "writeGlobalLock",
      "writeProjectLock",
    ];
    expect(Object.keys(await import(`${dist}index.js`)).sort()).toEqual(names);
    expect(Object.keys(require(`${dist}index.cjs`)).sort()).toEqual(names);
  });
});
