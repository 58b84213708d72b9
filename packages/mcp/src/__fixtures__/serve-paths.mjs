// An MCP server over stdio serving the SKILL.md files listed (one absolute path a line) in
// the file named by argv[2], through the built package, as a consumer would run it. With
// argv[4], appends its process id to that file. With argv[5], first starts a process that
// holds its stdout and lives on (as a helper a server forgets would), and writes that
// process's id to that file.
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { SkillService } from "@skill/core";
import { serveStdio } from "../../dist/stdio.js";

if (process.argv[5]) {
  const helper = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", "serve-paths-helper"], {
    stdio: ["ignore", "inherit", "ignore"],
  });
  helper.unref(); // this server exits when its client is done; the helper does not
  writeFileSync(process.argv[5], String(helper.pid));
}
const paths = readFileSync(process.argv[2], "utf8").split("\n").filter(Boolean).sort();
const entries = paths.map((location) => ({ location }));
const service = new SkillService({
  sources: [{ id: "paths", scan: async () => ({ entries, dirs: [] }) }],
});
await service.discoverAndLoad();
if (process.argv[4]) appendFileSync(process.argv[4], `${process.pid}\n`);
await serveStdio(service, { name: "corpus", version: "1.0.0", prefix: process.argv[3] ?? "skills" });
