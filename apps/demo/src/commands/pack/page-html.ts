import { createHash } from "node:crypto";
import { printable } from "@skill/core";
import { PAGE_SCRIPT, PAGE_STYLE } from "./page-assets.js";
import type { PageIndex } from "./page-search.js";
import { type PageSkill, URL_PLACEHOLDER } from "./page-skills.js";

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text for HTML content and quoted attributes: nothing in it is markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** Text from a skill, on one line: control characters and bidi overrides escaped as the CLI prints them. */
function shown(text: string): string {
  return escapeHtml(printable(text.replace(/[\t\n\r]+/g, " ")));
}

/**
 * JSON that stays data inside a `<script>` element: `<`, `>` and `&` (so no `</script>` or
 * `<!--` can end it) and the line separators U+2028/2029 are written as `\u` escapes.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`,
  );
}

function cspHash(text: string): string {
  return `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
}

/** Nothing leaves the page: no fetch, no image, no font; only its own style and script run. */
function contentPolicy(): string {
  return [
    "default-src 'none'",
    `style-src ${cspHash(PAGE_STYLE)}`,
    `script-src ${cspHash(PAGE_SCRIPT)}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
}

function chips(items: readonly string[], empty = "none"): string {
  if (items.length === 0) return `<span class="none">${empty}</span>`;
  return `<ul class="chips">${items.map((i) => `<li>${shown(i)}</li>`).join("")}</ul>`;
}

/** The files, folded away beyond a dozen (a `<details>` opens without JavaScript). */
function filesOf(files: readonly string[]): string {
  if (files.length <= 12) return chips(files);
  return `<details><summary>${files.length} files</summary>${chips(files)}</details>`;
}

const CAPABILITY_ROWS = [
  ["tools", "Tools"],
  ["executables", "Runs"],
  ["commands", "Commands"],
  ["hosts", "Hosts"],
  ["env", "Environment"],
] as const;

function capabilitiesOf(capabilities: PageSkill["capabilities"]): string {
  if ("error" in capabilities) {
    return `<dt>Can do</dt><dd><span class="none">not audited: ${shown(capabilities.error)}</span></dd>`;
  }
  const rows = CAPABILITY_ROWS.filter(([key]) => capabilities[key].length > 0).map(
    ([key, label]) => `<dt>${label}</dt><dd>${chips(capabilities[key])}</dd>`,
  );
  if (capabilities.hooks) rows.push(`<dt>Hooks</dt><dd>${chips(["hooks in its frontmatter"])}</dd>`);
  if (rows.length > 0) return rows.join("");
  return `<dt>Can do</dt><dd><span class="none">no tools, scripts, commands, hosts, environment variables or hooks</span></dd>`;
}

/** What the audit found, errors first: a row only when there is something to say. */
function findingsOf(findings: PageSkill["findings"]): string {
  if (findings.length === 0) return "";
  const ordered = [...findings].sort(
    (a, b) => Number(b.severity === "error") - Number(a.severity === "error"),
  );
  const each = ordered.map((f) => {
    const where = f.line === undefined ? f.path : `${f.path}:${f.line}`;
    return [
      `<li class="${f.severity}"><span class="sev">${f.severity}</span> `,
      `${shown(f.message)} <span class="where">${shown(where)} · ${shown(f.rule)}</span></li>`,
    ].join("");
  });
  return `<dt>Findings</dt><dd><ul class="findings">${each.join("")}</ul></dd>`;
}

function commandsOf(commands: readonly string[]): string {
  const each = commands.map((c) => `<div class="cmd"><code>${shown(c)}</code></div>`);
  return `<div class="cmds">${each.join("")}</div>`;
}

function skillItem(skill: PageSkill, position: number): string {
  const id = `skill-${encodeURIComponent(skill.name)}`;
  return [
    `<li class="skill" id="${escapeHtml(id)}" data-skill="${position}">`,
    `<h2><a href="#${escapeHtml(id)}">${shown(skill.name)}</a></h2>`,
    `<p class="desc">${shown(skill.description)}</p>`,
    `<dl class="facts">`,
    findingsOf(skill.findings),
    `<dt>Install</dt><dd>${commandsOf(skill.install)}</dd>`,
    `<dt>Files</dt><dd>${filesOf(skill.files)}</dd>`,
    capabilitiesOf(skill.capabilities),
    `</dl></li>`,
  ].join("\n");
}

/** Where to put the pack's URL, when it was written without `--base-url`. */
function placeholderNote(): string {
  return [
    `<p class="note" id="placeholder-note">The install commands need the URL of the folder this pack is served from: `,
    `replace <code>${escapeHtml(URL_PLACEHOLDER)}</code> with it, or write this page with `,
    `<code>skill pack DIR --html --base-url URL</code> to fill it in.</p>`,
  ].join("");
}

/** What a page shows: the pack's name (its folder), its skills and their search index. */
export interface Page {
  readonly title: string;
  readonly skills: readonly PageSkill[];
  readonly index: PageIndex;
  readonly placeholder: boolean;
}

/** The pack's page: one self-contained HTML file, every skill readable without JavaScript. */
export function renderPage(page: Page): string {
  const count = `${page.skills.length} ${page.skills.length === 1 ? "skill" : "skills"}`;
  return [
    `<!doctype html>`,
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentPolicy())}">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<meta name="color-scheme" content="light dark">`,
    `<title>${shown(page.title)}: ${count}</title>`,
    `<style>${PAGE_STYLE}</style></head>`,
    `<body><div class="page"><header>`,
    `<h1>${shown(page.title)}</h1>`,
    `<p>${count} · an Agent Skills pack (<a href="index.json">index.json</a>)</p>`,
    `<form class="search" id="search" role="search" hidden>`,
    `<input id="q" type="search" placeholder="Search skills" aria-label="Search skills" autocomplete="off">`,
    `<output id="count" aria-live="polite">${count}</output></form></header>`,
    page.placeholder ? placeholderNote() : "",
    `<ul class="skills">`,
    ...page.skills.map(skillItem),
    `</ul><p class="empty" id="empty" hidden>No skill matches.</p>`,
    `<footer>Written by <code>skill pack --html</code>.</footer></div>`,
    `<script type="application/json" id="pack-index">${scriptJson(page.index)}</script>`,
    `<script>${PAGE_SCRIPT}</script>`,
    `</body></html>`,
    "",
  ].join("\n");
}
