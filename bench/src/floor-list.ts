// The least a `skill list` process can do: the floor's crawl of the roots given as arguments, each
// SKILL.md read, name and description taken without YAML, a line each and the count.
import { frontmatterBlocks, readNameAndDescription } from "./approaches/floors.js";

const pairs = frontmatterBlocks(process.argv.slice(2)).flatMap((b) => readNameAndDescription(b) ?? []);
const lines = pairs.map((p) => `${p.name}  ${p.description}\n`);
process.stdout.write(`${lines.join("")}\n${pairs.length} skills\n`);
