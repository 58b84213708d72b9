// The least a `skill list` process can do on a bench tree, as a whole process: crawl the roots
// given as arguments with the floor's crawl, read each SKILL.md, take its name and description
// with the floor's reader (no YAML, no validation), print a line each and the count. The start-up
// group runs it beside `skill list` and `node -e 0`: Node's start-up plus reading the skills,
// with nothing of a CLI around them.
import { readFileSync } from "node:fs";
import { readNameAndDescription } from "./approaches/floors.js";
import { crawlSkillFiles, isDirectory } from "./layout.js";

let out = "";
let listed = 0;
for (const root of process.argv.slice(2)) {
  if (!isDirectory(root)) continue;
  for (const path of crawlSkillFiles(root)) {
    const pair = readNameAndDescription(readFileSync(path, "utf8"));
    if (!pair) continue;
    out += `${pair.name}  ${pair.description}  ${path}\n`;
    listed++;
  }
}
process.stdout.write(`${out}\n${listed} skills\n`);
