// Driven by run.sh: node interop.mjs <node22> <skills cli.mjs> [--write]
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [node22, skillsCli, ...flags] = process.argv.slice(2);
const write = flags.includes("--write");
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const fixtures = join(root, "packages", "lock", "src", "__fixtures__");
const lock = await import(join(root, "packages", "lock", "dist", "index.js"));
const { folders } = JSON.parse(readFileSync(join(fixtures, "golden-folders.json"), "utf8"));
const goldenFile = join(fixtures, "golden-hashes.json");
const golden = JSON.parse(readFileSync(goldenFile, "utf8"));

function spec_has(name, path) {
  return Object.hasOwn(folders[name].files, path);
}

function makeFolder(spec, dir) {
  const put = (path, content) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  for (const [path, text] of Object.entries(spec.files)) put(path, text);
  for (const [path, b64] of Object.entries(spec.binary ?? {})) put(path, Buffer.from(b64, "base64"));
  for (const path of spec.executable ?? []) chmodSync(join(dir, path), 0o755);
  for (const [path, target] of Object.entries(spec.links ?? {})) symlinkSync(target, join(dir, path));
}

const version = spawnSync(node22, [skillsCli, "--version"], { encoding: "utf8" }).stdout.trim();
const nodeVersion = spawnSync(node22, ["--version"], { encoding: "utf8" }).stdout.trim();
console.log(`skills ${version} on node ${nodeVersion}; @skill/lock from packages/lock/dist`);

const work = mkdtempSync(join(tmpdir(), "skill-lock-interop-"));
let failed = 0;
const captured = {};

function skillsAdd(name, lang) {
  const home = join(work, `home-${name}-${lang}`);
  const project = join(work, `project-${name}-${lang}`);
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    LANG: lang,
    LC_ALL: lang,
    DO_NOT_TRACK: "1",
    DISABLE_TELEMETRY: "1",
  };
  const run = spawnSync(node22, [skillsCli, "add", join(work, "src", name), "--skill", name, "-y"], {
    cwd: project,
    env,
    encoding: "utf8",
    timeout: 120_000,
  });
  if (run.status !== 0)
    throw new Error(`skills add ${name} failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
  const file = join(project, "skills-lock.json");
  return { file, text: readFileSync(file, "utf8") };
}

for (const [name, spec] of Object.entries(folders)) {
  makeFolder(spec, join(work, "src", name));
  const { file, text } = skillsAdd(name, "en_US.UTF-8");
  const theirs = JSON.parse(text).skills[name]?.computedHash;
  const ours = await lock.computedHash(join(work, "src", name));
  captured[name] = theirs;
  const same = theirs === ours;
  const goldenSame = golden.hashes[name] === theirs;
  if (!same || (!write && !goldenSame)) failed++;
  console.log(
    `${same ? "same" : "DIFFERENT"}  ${name}: skills ${theirs}, ours ${ours}${goldenSame ? "" : `, committed golden ${golden.hashes[name] ?? "(none)"}`}`,
  );
  // The lock skills wrote, read and re-written by @skill/lock, gives the same bytes.
  const parsed = await lock.readProjectLock(file);
  const again = lock.formatProjectLock(parsed, dirname(file));
  if (again !== text) failed++;
  console.log(
    `${again === text ? "same" : "DIFFERENT"}  ${name}: skills-lock.json re-written by readProjectLock + formatProjectLock`,
  );
}

// Round trips between the two tools, on local sources.
const skillCli = join(root, "apps", "demo", "dist", "cli.js");
const plainEnv = (home) => ({ PATH: process.env.PATH, HOME: home, NO_COLOR: "1" });
function ourSkill(cwd, args) {
  return spawnSync(process.execPath, [skillCli, ...args], {
    cwd,
    env: plainEnv(join(work, "home-ours")),
    encoding: "utf8",
  });
}
function theirSkills(cwd, args) {
  return spawnSync(node22, [skillsCli, ...args], {
    cwd,
    env: {
      ...plainEnv(join(work, "home-theirs")),
      LANG: "en_US.UTF-8",
      LC_ALL: "en_US.UTF-8",
      DO_NOT_TRACK: "1",
      DISABLE_TELEMETRY: "1",
    },
    encoding: "utf8",
    timeout: 120_000,
  });
}
function check(ok, text) {
  if (!ok) failed++;
  console.log(`${ok ? "same" : "DIFFERENT"}  ${text}`);
}
const names = Object.keys(folders);
mkdirSync(join(work, "home-ours"), { recursive: true });
mkdirSync(join(work, "home-theirs"), { recursive: true });

// 1. A lock skill writes: skills lists it, and experimental_install restores it.
const ours = join(work, "ours");
mkdirSync(ours);
for (const name of names) {
  const r = ourSkill(ours, ["add", `../src/${name}`, "--for", "codex"]);
  if (r.status !== 0) throw new Error(`skill add ${name} failed:\n${r.stdout}${r.stderr}`);
}
const ourLock = readFileSync(join(ours, "skills-lock.json"), "utf8");
const listed = theirSkills(ours, ["list", "--json"]);
let listedNames = [];
try {
  listedNames = JSON.parse(listed.stdout)
    .map((s) => s.name)
    .sort();
} catch {
  listedNames = [`unreadable output: ${listed.stdout.slice(0, 200)}`];
}
check(
  JSON.stringify(listedNames) === JSON.stringify([...names].sort()),
  `skills list reads the skills skill add installed: ${listedNames.join(", ")}`,
);
const restored = join(work, "ours-restored");
mkdirSync(restored);
writeFileSync(join(restored, "skills-lock.json"), ourLock);
const install = theirSkills(restored, ["experimental_install"]);
check(install.status === 0, `skills experimental_install of skill's lock exits ${install.status}`);
check(
  readFileSync(join(restored, "skills-lock.json"), "utf8") === ourLock,
  "the lock skills rewrites after restoring is skill's lock, byte for byte",
);
for (const name of names) {
  const a = await lock.hashedFiles(join(ours, ".agents", "skills", name));
  const b = await lock.hashedFiles(join(restored, ".agents", "skills", name)).catch(() => ["(missing)"]);
  const extra = b.filter((f) => !a.includes(f));
  const missing = a.filter((f) => !b.includes(f));
  let sameBytes = missing.length === 0;
  for (const f of a) {
    if (!b.includes(f)) continue;
    if (
      !readFileSync(join(ours, ".agents", "skills", name, f)).equals(
        readFileSync(join(restored, ".agents", "skills", name, f)),
      )
    )
      sameBytes = false;
  }
  check(sameBytes, `${name}: every file skill installed is restored by skills with the same bytes`);
  if (extra.length > 0)
    console.log(`note  ${name}: skills also copies ${extra.join(", ")} (links it follows, node_modules)`);
  const script = join(restored, ".agents", "skills", name, "scripts", "run.sh");
  if (spec_has(name, "scripts/run.sh")) {
    const { statSync } = await import("node:fs");
    const mode = (statSync(script).mode & 0o777).toString(8);
    console.log(`note  ${name}: scripts/run.sh restored by skills with mode ${mode}; skill keeps 755`);
  }
}

// 2. A lock skills writes: skill install --frozen restores it, every hash verified.
for (const name of names) {
  const project = join(work, `restore-${name}`);
  mkdirSync(project);
  const theirLock = readFileSync(join(work, `project-${name}-en_US.UTF-8`, "skills-lock.json"), "utf8");
  writeFileSync(join(project, "skills-lock.json"), theirLock);
  const r = ourSkill(project, ["install", "--frozen", "--for", "codex"]);
  const hash =
    r.status === 0 ? await lock.computedHash(join(project, ".agents", "skills", name)) : "(not installed)";
  check(
    r.status === 0 && hash === JSON.parse(theirLock).skills[name].computedHash,
    `${name}: skill install --frozen restores the lock skills wrote (exit ${r.status}), installed files hash to its computedHash${r.status === 0 ? "" : `: ${r.stderr.trim()}`}`,
  );
  check(
    readFileSync(join(project, "skills-lock.json"), "utf8") === theirLock,
    `${name}: the lock skills wrote is left byte for byte`,
  );
}

// 3. Git sources, over smart HTTP on 127.0.0.1: both tools lock the same repository at a
// tag, and each restores the other's lock.
const { serveGit } = await import("./git-server.mjs");
const { spawn } = await import("node:child_process");
function runAsync(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, options);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}
const gitEnv = { PATH: process.env.PATH, HOME: work, GIT_CONFIG_NOSYSTEM: "1" };
const gitRun = (cwd, ...args) =>
  spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.test", ...args], {
    cwd,
    env: gitEnv,
    encoding: "utf8",
  });
const gitSrc = join(work, "git-src");
for (const name of ["plain", "scripts"]) makeFolder(folders[name], join(gitSrc, "skills", name));
gitRun(gitSrc, "init", "-q", "-b", "main");
gitRun(gitSrc, "add", "-A");
gitRun(gitSrc, "commit", "-qm", "v1");
gitRun(gitSrc, "tag", "v1");
writeFileSync(
  join(gitSrc, "skills", "scripts", "SKILL.md"),
  "---\nname: scripts\ndescription: changed after v1\n---\n",
);
gitRun(gitSrc, "commit", "-qam", "after v1");
mkdirSync(join(work, "git"));
gitRun(work, "clone", "-q", "--bare", gitSrc, join(work, "git", "skills.git"));
const gitServer = await serveGit(join(work, "git"));
try {
  const url = `${gitServer.url}/skills.git`;
  const theirEnv = {
    ...plainEnv(join(work, "home-theirs")),
    LANG: "en_US.UTF-8",
    LC_ALL: "en_US.UTF-8",
    DO_NOT_TRACK: "1",
    DISABLE_TELEMETRY: "1",
  };
  const ourEnv = plainEnv(join(work, "home-ours"));
  /**
   * One source added by each tool (`theirs` / `ours`: the add arguments after `add`), their
   * locks compared byte for byte, and each lock restored by the other tool, hashes verified.
   */
  async function roundTrip(key, label, theirs, ours) {
    const [theirsDir, oursDir, ourRestore, theirRestore] = [
      "theirs",
      "ours",
      "ours-restore",
      "theirs-restore",
    ].map((side) => join(work, `${key}-${side}`));
    for (const dir of [theirsDir, oursDir, ourRestore, theirRestore]) mkdirSync(dir);
    const a = await runAsync(node22, [skillsCli, "add", ...theirs], { cwd: theirsDir, env: theirEnv });
    const b = await runAsync(process.execPath, [skillCli, "add", ...ours], { cwd: oursDir, env: ourEnv });
    check(
      a.status === 0 && b.status === 0,
      `skills add and skill add of ${label} both exit 0 (${a.status}, ${b.status})${b.status === 0 ? "" : `: ${b.stderr.trim()}`}`,
    );
    const theirLock = readFileSync(join(theirsDir, "skills-lock.json"), "utf8");
    const ourLock = readFileSync(join(oursDir, "skills-lock.json"), "utf8");
    check(theirLock === ourLock, `${label}: skill add writes the lock skills add writes, byte for byte`);
    if (theirLock !== ourLock) console.log(`skills:\n${theirLock}skill:\n${ourLock}`);
    const entry = JSON.parse(theirLock).skills.scripts;
    console.log(
      `note  ${label} entry fields: ${Object.keys(entry).join(", ")}; source ${entry.source.replace(/:\d+/, ":PORT")}, sourceType ${entry.sourceType}, ref ${entry.ref}, skillPath ${entry.skillPath}`,
    );
    writeFileSync(join(ourRestore, "skills-lock.json"), theirLock);
    const c = await runAsync(process.execPath, [skillCli, "install", "--frozen", "--for", "codex"], {
      cwd: ourRestore,
      env: ourEnv,
    });
    const ourHash =
      c.status === 0
        ? await lock.computedHash(join(ourRestore, ".agents", "skills", "scripts"))
        : "(not installed)";
    check(
      c.status === 0 && ourHash === entry.computedHash,
      `${label}: skill install --frozen restores skills' lock, hash verified (exit ${c.status})${c.status === 0 ? "" : `: ${c.stderr.trim()}`}`,
    );
    writeFileSync(join(theirRestore, "skills-lock.json"), ourLock);
    const d = await runAsync(node22, [skillsCli, "experimental_install"], {
      cwd: theirRestore,
      env: theirEnv,
    });
    const theirHash = await lock
      .computedHash(join(theirRestore, ".agents", "skills", "scripts"))
      .catch(() => "(not installed)");
    check(
      d.status === 0 && theirHash === entry.computedHash,
      `${label}: skills experimental_install restores skill's lock (exit ${d.status})`,
    );
  }

  // 3. A git URL at a tag.
  await roundTrip(
    "git",
    "git source http://127.0.0.1:PORT/skills.git#v1",
    [`${url}#v1`, "--skill", "scripts", "-y"],
    [`${url}#v1`, "scripts", "--for", "codex"],
  );

  // 5. GitHub's owner/repo shorthand, and 6. a GitLab tree at a ref: both homes' git
  // configuration sends https://github.com/ and https://gitlab.com/ to this server
  // (`url.<base>.insteadOf`, as a mirror is set up), so each tool clones from here.
  gitRun(work, "clone", "-q", "--bare", gitSrc, join(work, "git", "acme", "tools.git"));
  const mirror = `[url "${gitServer.url}/"]\n\tinsteadOf = https://github.com/\n\tinsteadOf = https://gitlab.com/\n`;
  writeFileSync(join(work, "home-theirs", ".gitconfig"), mirror);
  writeFileSync(join(work, "home-ours", ".gitconfig"), mirror);
  await roundTrip(
    "hub",
    "GitHub shorthand acme/tools#v1",
    ["acme/tools#v1", "--skill", "scripts", "-y"],
    ["acme/tools#v1", "scripts", "--for", "codex"],
  );
  const tree = "https://gitlab.com/acme/tools/-/tree/v1/skills";
  await roundTrip(
    "lab",
    `GitLab tree ${tree}`,
    [tree, "--skill", "scripts", "-y"],
    [tree, "scripts", "--for", "codex"],
  );
} finally {
  await gitServer.close();
}

// 4. A local folder holding several skills: skills' lock names the folder and not the skill (no
// skillPath), and skill install --frozen finds the skill by name in it; each tool restores the
// lock the other wrote for that folder.
{
  const multi = join(work, "multi-src");
  for (const name of ["plain", "scripts"]) makeFolder(folders[name], join(multi, "skills", name));
  const theirsMulti = join(work, "multi-theirs");
  const oursMulti = join(work, "multi-ours");
  mkdirSync(theirsMulti);
  mkdirSync(oursMulti);
  const a = theirSkills(theirsMulti, ["add", "../multi-src", "--skill", "scripts", "-y"]);
  const b = ourSkill(oursMulti, ["add", "../multi-src", "scripts", "--for", "codex"]);
  check(
    a.status === 0 && b.status === 0,
    `skills add and skill add of a local folder of two skills both exit 0 (${a.status}, ${b.status})`,
  );
  const theirMulti = readFileSync(join(theirsMulti, "skills-lock.json"), "utf8");
  const ourMulti = readFileSync(join(oursMulti, "skills-lock.json"), "utf8");
  const entry = JSON.parse(theirMulti).skills.scripts;
  console.log(
    `note  local folder entry fields (skills): ${Object.keys(entry).join(", ")}; source ${entry.source}${entry.skillPath ? `, skillPath ${entry.skillPath}` : ", no skillPath"}`,
  );
  const ourEntry = JSON.parse(ourMulti).skills.scripts;
  console.log(
    `note  local folder entry fields (skill): ${Object.keys(ourEntry).join(", ")}; source ${ourEntry.source}${ourEntry.skillPath ? `, skillPath ${ourEntry.skillPath}` : ", no skillPath"}`,
  );
  const ourRestore = join(work, "multi-ours-restore");
  mkdirSync(ourRestore);
  writeFileSync(join(ourRestore, "skills-lock.json"), theirMulti);
  const c = ourSkill(ourRestore, ["install", "--frozen", "--for", "codex"]);
  const hash =
    c.status === 0
      ? await lock.computedHash(join(ourRestore, ".agents", "skills", "scripts"))
      : "(not installed)";
  check(
    c.status === 0 && hash === entry.computedHash,
    `local folder: skill install --frozen restores the lock skills add wrote, finding the skill by name (exit ${c.status})${c.status === 0 ? "" : `: ${c.stderr.trim()}`}`,
  );
  check(
    readFileSync(join(ourRestore, "skills-lock.json"), "utf8") === theirMulti,
    "local folder: the lock skills wrote is left byte for byte",
  );
  const theirRestore = join(work, "multi-theirs-restore");
  mkdirSync(theirRestore);
  writeFileSync(join(theirRestore, "skills-lock.json"), ourMulti);
  const d = theirSkills(theirRestore, ["experimental_install"]);
  const theirHash = await lock
    .computedHash(join(theirRestore, ".agents", "skills", "scripts"))
    .catch(() => "(not installed)");
  check(
    d.status === 0 && theirHash === ourEntry.computedHash,
    `local folder: skills experimental_install restores the lock skill add wrote (exit ${d.status})`,
  );
}

// Where skills falls short: its order follows the process locale (ä sorts after z in Swedish).
const swedish = JSON.parse(skillsAdd("locale-order", "sv_SE.UTF-8").text).skills["locale-order"].computedHash;
console.log(
  `note  locale-order under LANG=sv_SE.UTF-8: skills ${swedish} (${swedish === captured["locale-order"] ? "same as en_US" : "differs from en_US"}); ours does not depend on the locale`,
);

if (write) {
  const out = {
    about: `computedHash of each folder of golden-folders.json, written by skills ${version} (node ${nodeVersion}, LANG=en_US.UTF-8) into skills-lock.json; captured by scripts/lock-interop/run.sh --write`,
    hashes: captured,
  };
  writeFileSync(goldenFile, `${JSON.stringify(out, null, 2)}\n`);
  console.log(`wrote ${goldenFile}`);
}
rmSync(work, { recursive: true, force: true });
console.log(failed === 0 ? "interop: all same" : `interop: ${failed} difference(s)`);
process.exit(failed === 0 ? 0 : 1);
