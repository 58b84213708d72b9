#!/usr/bin/env node
// The five-minute tour: serves examples/remote-pack on 127.0.0.1, then runs the
// `skill` CLI over the bundled examples. Writes nothing but a temporary cache.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { serveDir } from "./serve.mjs";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const project = join(repo, "examples", "project");
const home = join(repo, "examples", "home");
const pack = join(repo, "examples", "remote-pack");

const cache = await mkdtemp(join(tmpdir(), "skill-demo-cache-"));
const server = await serveDir(pack, "/.well-known/agent-skills/");
const base = ["--cwd", project, "--home", home, "--cache", cache];
const shown = (args) =>
  args
    .map((a) =>
      a
        .replaceAll(cli, "apps/demo/dist/cli.js")
        .replaceAll(project, "examples/project")
        .replaceAll(home, "examples/home")
        .replaceAll(cache, "$CACHE")
        .replaceAll(process.execPath, "node"),
    )
    .map((a) => (a.includes(" ") ? JSON.stringify(a) : a))
    .join(" ");

// The demo shows the bundled examples the same way everywhere: variables that change which
// folders an agent reads (OPENCODE_DISABLE_CLAUDE_CODE, CLAUDE_CONFIG_DIR…) are left out.
const env = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^(OPENCODE_|CLAUDE_|CODEX_|XDG_)/.test(key)),
);

let failures = 0;
// Asynchronous on purpose: the pack server lives in this process and must keep answering.
async function step(title, args, expectedExit = 0) {
  console.log(`\n# ${title}\n$ skill ${shown(args)}`);
  const child = spawn(process.execPath, [cli, ...base, ...args], { stdio: "inherit", env });
  const status = await new Promise((resolve) => child.on("close", resolve));
  if (status !== expectedExit) {
    failures++;
    console.log(`!! expected exit ${expectedExit}, got ${status}`);
  } else if (expectedExit !== 0) {
    console.log(`(exit ${status}, as expected)`);
  }
}

try {
  console.log(`Serving ${relative(repo, pack)} at ${server.url}.well-known/agent-skills/; cache in ${cache}`);
  await step("Every skill the default agent sees: project, home and config paths", ["list", "--verbose"]);
  await step("The system-prompt catalog for agent 'review' (internal-deploy is denied to it)", [
    "prompt",
    "--agent",
    "review",
  ]);
  await step("Why 'review' does not see internal-deploy", ["why", "internal-deploy", "--agent", "review"]);
  await step("Download the remote pack", ["pull", server.url]);
  await step("What an agent receives when it loads the remote skill", [
    "show",
    "remote-skill",
    "--url",
    server.url,
  ]);
  await step("A compact catalog within a 300-character budget", [
    "prompt",
    "--style",
    "markdown",
    "--budget",
    "300",
  ]);
  // `--cwd $CACHE`: only the MCP server's skills, none of the project's own.
  const serve = [process.execPath, cli, "serve-mcp", "--cwd", project, "--home", home, "--agent", "review"];
  await step("The skills 'review' gets from an MCP server: skill serve-mcp, read back over stdio", [
    "--cwd",
    cache,
    "list",
    "--mcp",
    serve.map((a) => `'${a}'`).join(" "),
  ]);
  await step(
    "Check every skill here against the Agent Skills rules (the broken example is an error)",
    ["validate"],
    1,
  );
} finally {
  await server.close();
  await rm(cache, { recursive: true, force: true });
}
console.log(
  failures === 0
    ? "\nDemo finished: every step behaved as expected."
    : `\nDemo: ${failures} step(s) misbehaved.`,
);
process.exit(failures === 0 ? 0 : 1);
