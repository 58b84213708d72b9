// @module-tag slow: builds 3,000 skill folders and loads them in a child process.
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const DIST = fileURLToPath(new URL("../../dist/index.js", import.meta.url));

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-core-abort-"));
  for (let i = 0; i < 3000; i++) {
    const dir = join(root, `s${String(i).padStart(4, "0")}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "SKILL.md"), `---\nname: s${i}\ndescription: skill ${i}\n---\nbody\n`);
  }
}, 120_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
}, 60_000);

// Slow entry reads are queued first, then thousands of file reads: the abort lands while the
// file reads run and the entry reads are still pending. Any rejection left unobserved kills a
// process run with --unhandled-rejections=strict.
const SCRIPT = `
import { readdirSync } from "node:fs";
import { join } from "node:path";
const { SkillService, SkillError } = await import(process.env.CORE_DIST);
const root = process.env.TREE;
let slow = true;
const source = {
  id: "mixed",
  async scan(ctx) {
    const reads = Array.from({ length: 8 }, (_, i) => ({
      location: "mem:slow/" + i,
      read: (c) => new Promise((resolve, reject) => {
        if (!slow) return resolve("---\\nname: m" + i + "\\ndescription: d\\n---\\n");
        const t = setTimeout(() => resolve("---\\nname: m" + i + "\\ndescription: d\\n---\\n"), 200);
        c.signal?.addEventListener("abort", () => { clearTimeout(t); reject(new SkillError("ABORTED", "aborted")); });
      }),
    }));
    const files = readdirSync(root).sort().map((d) => ({ location: join(root, d, "SKILL.md") }));
    return { entries: [...reads, ...files], dirs: [root] };
  },
};
const service = new SkillService({ sources: [source] });
slow = false;
const first = await service.discoverAndLoad();
slow = true;
const controller = new AbortController();
setTimeout(() => controller.abort(new Error("stop")), 5);
let code;
try { await service.discoverAndLoad({ signal: controller.signal }); code = "resolved"; }
catch (e) { code = e.code; }
await new Promise((r) => setTimeout(r, 400));
console.log(JSON.stringify({ code, first: first.loaded, kept: service.all().length }));
`;

describe("abort during a load with a slow entry source", () => {
  it("leaves no unhandled rejection and keeps the previous registry", () => {
    const child = spawnSync(
      process.execPath,
      ["--unhandled-rejections=strict", "--input-type=module", "-e", SCRIPT],
      {
        env: { CORE_DIST: DIST, TREE: root, PATH: process.env.PATH ?? "" },
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    const result = JSON.parse(child.stdout.trim()) as { code: string; first: number; kept: number };
    expect(result).toEqual({ code: "ABORTED", first: 3008, kept: 3008 });
  }, 60_000);
});
