// Runs one pull through the built package in its own process, as another program would:
// node pull-process.mjs <dist/index.cjs|dist/index.js> <url> <cacheDir> [options JSON]
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const [entry, url, cacheDir, extra] = process.argv.slice(2);
const remote = entry.endsWith(".cjs")
  ? createRequire(import.meta.url)(entry)
  : await import(pathToFileURL(entry).href);
const result = await remote.pull(url, { cacheDir, ...(extra ? JSON.parse(extra) : {}) });
process.stdout.write(JSON.stringify({ result, dirName: remote.urlToDirName(url) }));
