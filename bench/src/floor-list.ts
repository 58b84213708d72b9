// The least a `skill list` process can do on a bench tree, as a whole process: the synchronous
// floor's crawl of the roots given as arguments, each SKILL.md read, name and description taken
// without YAML or validation, a line each and the count. The start-up group runs it beside
// `skill list` and `node -e 0`: Node's start-up plus reading the skills, with no CLI around them.
import { frontmatterBlocks, readNameAndDescription } from "./approaches/floors.js";

const pairs = frontmatterBlocks(process.argv.slice(2)).flatMap(
  (block) => readNameAndDescription(block) ?? [],
);
process.stdout.write(
  `${pairs.map((p) => `${p.name}  ${p.description}\n`).join("")}\n${pairs.length} skills\n`,
);
