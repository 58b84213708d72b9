#!/usr/bin/env node
// Sums the vitest JSON reports of every workspace package into one line,
// "N passed, N failed", and exits non-zero when anything failed. A package
// whose tests did not report, or a failed non-test step (build, typecheck,
// lint, package shape), counts as one failure so that the line never hides it.
//
//   node scripts/test-summary.mjs STATUS [--rehearsal FILE]
//
// With --rehearsal, the checks of the release rehearsal's report (written by
// `release-rehearsal.mjs --report FILE`) count too; a missing report is one failure.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const stepStatus = Number(process.argv[2] ?? 0);
const rehearsalAt = process.argv.indexOf("--rehearsal");
const rehearsalReport = rehearsalAt > 0 ? process.argv[rehearsalAt + 1] : undefined;

const dirs = [
  ...["packages", "apps"].flatMap((group) =>
    existsSync(join(root, group)) ? readdirSync(join(root, group)).map((name) => join(group, name)) : [],
  ),
  "bench",
  "examples",
  ".", // the repository's own tests (tests/: the architecture of the house)
];

let passed = 0;
let failed = 0;
for (const dir of dirs) {
  const manifest = join(root, dir, "package.json");
  if (!existsSync(manifest)) continue;
  const pkg = JSON.parse(readFileSync(manifest, "utf8"));
  if (!pkg.scripts?.test) continue;
  const reportPath = join(root, dir, "test-results.json");
  if (!existsSync(reportPath)) {
    console.log(`${pkg.name}: no test report (its tests did not run)`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(reportPath, "utf8"));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  if (report.success === false && (report.numFailedTests ?? 0) === 0) {
    console.log(`${pkg.name}: test run failed outside any test (see its output above)`);
    failed += 1;
  }
}

if (rehearsalReport !== undefined) {
  if (existsSync(rehearsalReport)) {
    const report = JSON.parse(readFileSync(rehearsalReport, "utf8"));
    passed += report.passed ?? 0;
    failed += report.failed ?? 0;
    if ((report.failed ?? 0) > 0)
      console.log(`release rehearsal: ${report.failed} failed (see its output above)`);
  } else {
    console.log("release rehearsal: no report (it did not finish; see its output above)");
    failed += 1;
  }
}

if (stepStatus !== 0 && failed === 0) {
  console.log("A build, typecheck, lint or package-shape step failed (see the output above).");
  failed += 1;
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
