// Refreshes the screenshot of a pack's page in the CLI's README (docs/pack-page.png): packs a
// copy of the example skills with `skill pack --html` (the built CLI) and photographs the page
// in Debian's chromium (TOOLCHAIN 9), 1200×800. Run by hand: node apps/demo/scripts/page-screenshot.mjs
import { execFileSync } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const skills = fileURLToPath(new URL("../../../examples/project/.agents/skills/", import.meta.url));
const out = fileURLToPath(new URL("../docs/pack-page.png", import.meta.url));

const root = await mkdtemp(join(tmpdir(), "skill-page-shot-"));
const pack = join(root, "example-skills");
try {
  await cp(skills, pack, { recursive: true });
  // The example folder holds a skill that does not parse, on purpose: it is left out here.
  await rm(join(pack, "broken"), { recursive: true });
  execFileSync(process.execPath, [cli, "pack", pack, "--html", "--base-url", "https://example.com/skills/"], {
    stdio: "inherit",
  });
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-background-networking"],
  });
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  await page.goto(pathToFileURL(join(pack, "index.html")).href);
  await page.screenshot({ path: out });
  await browser.close();
  console.log(`wrote ${out}`);
} finally {
  await rm(root, { recursive: true, force: true });
}
