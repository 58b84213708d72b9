// @module-tag slow: every test here runs the built `skill` CLI in a child process.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { urlToDirName } from "@skill/remote";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type PackServer, sandbox, servePack, skill, skillMd } from "../../../test/remote-pack.js";

let box: Awaited<ReturnType<typeof sandbox>>;
let server: PackServer;

beforeEach(async () => {
  box = await sandbox();
  server = await servePack({ a: skillMd("a") });
});

afterEach(async () => {
  await server.close();
  await box.cleanup();
});

describe("skill verify", () => {
  it("exits 1 with a clear message for a URL never pulled into this cache", async () => {
    const never = await skill([...box.base, "verify", server.index], box.root);
    expect(never.code).toBe(1);
    expect(never.stderr).toContain(
      `✗ ${server.index} was never pulled into ${box.cache}: nothing to verify (run: skill pull ${server.index})`,
    );
    const json = await skill([...box.base, "verify", server.index, "--json"], box.root);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      packs: 0,
      checked: 0,
      error: { code: "NOT_FOUND" },
    });
    // The whole cache, empty, has nothing wrong in it.
    expect((await skill([...box.base, "verify"], box.root)).code).toBe(0);
  });

  it("passes a fresh pull, and fails once a file changed", async () => {
    expect((await skill([...box.base, "pull", server.index], box.root)).code).toBe(0);
    const ok = await skill([...box.base, "verify", server.index], box.root);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("1 cached skill checked");
    await writeFile(join(box.cache, urlToDirName(server.index), "a", "SKILL.md"), skillMd("a", "edited"));
    const bad = await skill([...box.base, "verify", server.index], box.root);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("SKILL.md changed since it was pulled");
  });
});
