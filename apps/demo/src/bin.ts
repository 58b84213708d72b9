#!/usr/bin/env node
// The `skill` binary. Where the running Node has a compile cache (22.1 and later), it is turned
// on before the CLI's modules load, so later starts read their compiled code from disk instead
// of compiling it again. Node 20 has none: it starts the CLI as it is.
import module from "node:module";

const enableCompileCache = (module as { enableCompileCache?: () => unknown }).enableCompileCache;
if (enableCompileCache && !process.env.NODE_DISABLE_COMPILE_CACHE) {
  try {
    enableCompileCache();
  } catch {
    // A cache folder that cannot be written: start without it.
  }
}

await import("./cli.js");
