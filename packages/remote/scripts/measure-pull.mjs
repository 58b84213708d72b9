// Cold and warm pulls of one 500-skill pack, read as discovery v0.1 (files) and as v0.2
// (digests, archives), from a loopback server that waits 20 ms before every answer.
// Counts requests on the server. Run after a build: node packages/remote/scripts/measure-pull.mjs
// Each pull gets its own cache and nothing is deleted until the end: on a disk whose ext4 has no
// journal, thousands of files deleted just before a pull make every file it creates dearer.
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pull, writeManifest } from "../dist/index.js";

const SKILLS = Number(process.env.SKILLS ?? 500);
const DELAY_MS = Number(process.env.DELAY_MS ?? 20);
const root = await mkdtemp(join(tmpdir(), "skill-measure-"));
const packDir = join(root, "pack");

// 500 skills: SKILL.md and three bundled files each (the bench's shape).
for (let i = 0; i < SKILLS; i++) {
  const name = `skill-${String(i).padStart(3, "0")}`;
  const dir = join(packDir, name);
  await mkdir(join(dir, "reference"), { recursive: true });
  await writeFile(
    join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: Skill number ${i} of the pack\n---\n# ${name}\n\n${"Do the thing. ".repeat(40)}\n`,
  );
  await writeFile(join(dir, "reference", "guide.md"), `# Guide ${i}\n${"More detail. ".repeat(80)}\n`);
  await writeFile(join(dir, "reference", "api.md"), `# API ${i}\n${"An endpoint. ".repeat(60)}\n`);
  await writeFile(join(dir, "run.sh"), `#!/bin/sh\necho ${i}\n`);
}
await writeManifest(packDir);
const hybrid = JSON.parse(await readFile(join(packDir, "index.json"), "utf8"));
const v01 = {
  skills: hybrid.skills.map(({ name, description, version, files }) => ({
    name,
    description,
    version,
    files,
  })),
};
await writeFile(join(packDir, "v01.json"), JSON.stringify(v01));
const bare = { skills: v01.skills.map(({ name, description, files }) => ({ name, description, files })) };
await writeFile(join(packDir, "v01-bare.json"), JSON.stringify(bare));

let requests = 0;
const server = createServer(async (req, res) => {
  requests++;
  await new Promise((resolve) => setTimeout(resolve, DELAY_MS));
  const path = join(
    packDir,
    ...decodeURIComponent(new URL(req.url, "http://x").pathname)
      .split("/")
      .filter((s) => s && s !== ".."),
  );
  try {
    const info = await stat(path);
    const etag = `"${createHash("sha1").update(`${info.size}-${info.mtimeMs}`).digest("hex").slice(0, 16)}"`;
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, { etag }).end();
      return;
    }
    const body = await readFile(path);
    res.writeHead(200, { etag, "content-length": body.length }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}/`;

async function measure(label, url, cacheDir) {
  requests = 0;
  const started = performance.now();
  const result = await pull(url, { cacheDir });
  const ms = performance.now() - started;
  if (result.files.length !== SKILLS || result.skipped.length > 0)
    throw new Error(`${label}: ${result.files.length} skills, ${result.skipped.length} skipped`);
  return { label, requests, ms: Math.round(ms) };
}

const rows = [];
const variants = [
  ["v0.1 without version (per-file revalidation)", "v01-bare.json"],
  ["v0.1 with version", "v01.json"],
  ["v0.2 (hybrid index)", "index.json"],
];
for (const [version, file] of variants) {
  const cacheDir = join(root, `cache-${file}`);
  rows.push(await measure(`${version} cold`, base + file, cacheDir));
  rows.push(await measure(`${version} warm`, base + file, cacheDir));
}
server.close();
await rm(root, { recursive: true, force: true });
console.log(`${SKILLS} skills × 4 files, ${DELAY_MS} ms added latency per request, default concurrency 8`);
console.log("| pull | requests | time |\n|---|---:|---:|");
for (const r of rows) console.log(`| ${r.label} | ${r.requests} | ${r.ms} ms |`);
