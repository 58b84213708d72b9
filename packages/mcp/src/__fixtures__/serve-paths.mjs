// An MCP server over stdio serving the SKILL.md files listed (one absolute path a line) in
// the file named by argv[2], through the built package, as a consumer would run it. With
// argv[4], appends its process id to that file.
import { appendFileSync, readFileSync } from "node:fs";
import { SkillService } from "@skill/core";
import { serveStdio } from "../../dist/stdio.js";

const paths = readFileSync(process.argv[2], "utf8").split("\n").filter(Boolean).sort();
const entries = paths.map((location) => ({ location }));
const service = new SkillService({
  sources: [{ id: "paths", scan: async () => ({ entries, dirs: [] }) }],
});
await service.discoverAndLoad();
if (process.argv[4]) appendFileSync(process.argv[4], `${process.pid}\n`);
await serveStdio(service, { name: "corpus", version: "1.0.0", prefix: process.argv[3] ?? "skills" });
