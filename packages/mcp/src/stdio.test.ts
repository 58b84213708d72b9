import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SkillService } from "@skill/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skillMd, writeTree } from "./__fixtures__/harness.js";
import { mcpStdioSource } from "./stdio.js";

const child = fileURLToPath(new URL("./__fixtures__/serve-paths.mjs", import.meta.url));
let tmp: string;
let list: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), "skill-mcp-stdio-"));
  await writeTree(tmp, { "own/lf/SKILL.md": skillMd("lf", "Plain LF skill"), "own/lf/notes.md": "notes\n" });
  list = join(tmp, "list.txt");
  await writeFile(list, join(tmp, "own/lf/SKILL.md"));
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** Whether a process runs: a zombie no one has reaped yet (a container's init may not) has ended. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z /s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true; // no /proc: kill(0) is all there is to go on
  }
}

async function gone(pid: number, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    if (!alive(pid)) return true;
  }
  return !alive(pid);
}

describe("mcpStdioSource and the processes it starts", { tags: ["slow"], timeout: 30_000 }, () => {
  it.skipIf(process.platform === "win32")(
    "ends the server's process group on close: a helper the server started that holds its stdout is ended too",
    async () => {
      const held = join(tmp, "helper.pid");
      const source = mcpStdioSource(process.execPath, [child, list, "skills", "", held]);
      let helper: number | undefined;
      try {
        expect((await source.scan({})).entries).toHaveLength(1);
        helper = Number(await readFile(held, "utf8"));
        expect(alive(helper)).toBe(true);
        const started = Date.now();
        await source.close();
        expect(Date.now() - started).toBeLessThan(8_000);
        expect(await gone(helper, 3_000)).toBe(true);
      } finally {
        if (helper !== undefined && alive(helper)) process.kill(helper, "SIGKILL");
      }
    },
  );

  it("starts the server once for a scan, a read and a close (the era probe runs on that process)", async () => {
    const pids = join(tmp, "once-pids.txt");
    const source = mcpStdioSource(process.execPath, [child, list, "skills", pids]);
    const service = new SkillService({ sources: [source] });
    try {
      await service.discoverAndLoad();
      expect((await service.read("lf")).content).toContain("Steps.");
      expect(await service.readFile("lf", "notes.md")).toEqual(new TextEncoder().encode("notes\n"));
    } finally {
      await source.close();
    }
    expect((await readFile(pids, "utf8")).trim().split("\n")).toHaveLength(1);
  });

  it("starts a 2025 server that exits on the era probe once more, straight to initialize", async () => {
    const starts = join(tmp, "legacy-starts.txt");
    // A 2025 server that ends on any request before initialize, as some SDKs' servers do.
    const script = `
      require("node:fs").appendFileSync(${JSON.stringify(starts)}, "started\\n");
      const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
      require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
        const m = JSON.parse(line);
        if (m.method === "server/discover") process.exit(1);
        if (m.method === "initialize") send({ id: m.id, result: { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "old", version: "1" } } });
        else if (m.method === "skills/list") send({ id: m.id, result: { skills: [] } });
      }).on("close", () => process.exit(0));`;
    const source = mcpStdioSource(process.execPath, ["-e", script], { timeoutMs: 10_000 });
    try {
      const scan = await source.scan({});
      expect(scan.diagnostics).toEqual([]);
    } finally {
      await source.close();
    }
    expect((await readFile(starts, "utf8")).trim().split("\n")).toHaveLength(2);
  });
});
