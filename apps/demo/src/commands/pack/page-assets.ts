// The style and the script of a pack's page, inlined into it: a page opened from `file://`
// cannot fetch its neighbours, and it asks nothing of the network (system fonts, no images).

/** Light by default, dark where the reader's system asks for it. */
export const PAGE_STYLE = `
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --card: #ffffff; --text: #1c2024; --muted: #5b6470; --line: #dfe3e8;
  --accent: #2f5fd0; --chip: #eef2fb; --chip-text: #23418f; --code: #f1f3f6; --warn: #9a4b00; --error: #b3261e;
  --font: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #111418; --card: #1a1e24; --text: #e6e9ee; --muted: #9aa4b1; --line: #2c323b;
    --accent: #8fb0ff; --chip: #232a38; --chip-text: #b9cbff; --code: #0d1014; --warn: #f0b35a; --error: #ff8a80;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 16px/1.5 var(--font); }
.page { max-width: 60rem; margin: 0 auto; padding: 2rem 1.25rem 3rem; }
header h1 { margin: 0; font-size: 1.75rem; letter-spacing: -0.01em; overflow-wrap: anywhere; }
header p { margin: 0.25rem 0 0; color: var(--muted); }
a { color: var(--accent); }
.search { display: flex; gap: 0.75rem; align-items: center; margin: 1.25rem 0 0; }
.search[hidden] { display: none; }
.search input { flex: 1; font: inherit; padding: 0.6rem 0.8rem; border: 1px solid var(--line);
  border-radius: 0.5rem; background: var(--card); color: var(--text); }
.search input:focus { outline: 2px solid var(--accent); outline-offset: 1px; }
.search output { color: var(--muted); white-space: nowrap; font-size: 0.9rem; }
.note { margin: 1.25rem 0 0; padding: 0.75rem 1rem; border-left: 3px solid var(--warn);
  background: var(--card); border-radius: 0.25rem; color: var(--muted); font-size: 0.92rem; }
.note code { color: var(--text); }
.skills { list-style: none; margin: 1.5rem 0 0; padding: 0; display: grid; gap: 1rem; }
.skill { background: var(--card); border: 1px solid var(--line); border-radius: 0.75rem; padding: 1.1rem 1.25rem; }
.skill[hidden] { display: none; }
.skill h2 { margin: 0; font-size: 1.15rem; font-family: var(--mono); overflow-wrap: anywhere; }
.skill h2 a { color: inherit; text-decoration: none; }
.skill h2 a:hover { text-decoration: underline; }
.desc { margin: 0.35rem 0 0.9rem; overflow-wrap: anywhere; }
.facts { display: grid; grid-template-columns: 7rem minmax(0, 1fr); gap: 0.4rem 1rem; margin: 0; font-size: 0.9rem; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; min-width: 0; }
.chips { display: flex; flex-wrap: wrap; gap: 0.3rem; margin: 0; padding: 0; list-style: none; }
.chips li { background: var(--chip); color: var(--chip-text); border-radius: 999px; padding: 0.05rem 0.6rem;
  font-family: var(--mono); font-size: 0.82rem; overflow-wrap: anywhere; }
.none { color: var(--muted); }
.findings { margin: 0; padding: 0; list-style: none; display: grid; gap: 0.25rem; }
.findings li { overflow-wrap: anywhere; }
.findings .sev { font-weight: 600; color: var(--warn); }
.findings .error .sev { color: var(--error); }
.findings .where { color: var(--muted); font-family: var(--mono); font-size: 0.8rem; }
.cmds { display: grid; gap: 0.35rem; }
.cmd { display: flex; align-items: stretch; border: 1px solid var(--line); border-radius: 0.4rem;
  background: var(--code); overflow: hidden; }
.cmd code { flex: 1; padding: 0.35rem 0.6rem; font: 0.85rem/1.5 var(--mono); overflow-x: auto;
  white-space: pre; user-select: all; }
.cmd button { font: inherit; font-size: 0.8rem; border: 0; border-left: 1px solid var(--line);
  background: transparent; color: var(--accent); padding: 0 0.75rem; cursor: pointer; }
.cmd button:hover { background: var(--chip); }
.empty { color: var(--muted); text-align: center; margin: 2rem 0; }
footer { margin-top: 2rem; color: var(--muted); font-size: 0.85rem; }
`;

/**
 * Shows the search box (hidden without JavaScript, where every skill is listed anyway), narrows
 * the list to the skills whose indexed words start with every word typed, and adds a copy button
 * to each install command. Plain ES2018: the page has no build step of its own.
 */
export const PAGE_SCRIPT = `
(function () {
  "use strict";
  var index = JSON.parse(document.getElementById("pack-index").textContent);
  var skills = Array.prototype.slice.call(document.querySelectorAll("li[data-skill]"));
  var form = document.getElementById("search");
  var box = document.getElementById("q");
  var count = document.getElementById("count");
  var empty = document.getElementById("empty");
  var WORD = /[\\p{L}\\p{N}]+/gu;
  function matching(query) {
    var typed = query.toLowerCase().match(WORD);
    if (!typed) return null;
    var found = null;
    typed.forEach(function (word) {
      var these = {};
      index.words.forEach(function (pair) {
        if (pair[0].indexOf(word) !== 0) return;
        pair[1].forEach(function (at) { if (found === null || found[at]) these[at] = true; });
      });
      found = these;
    });
    return found;
  }
  function many(n) { return n + (n === 1 ? " skill" : " skills"); }
  function update() {
    var found = matching(box.value);
    var shown = 0;
    skills.forEach(function (li) {
      var show = found === null || found[li.getAttribute("data-skill")] === true;
      li.hidden = !show;
      if (show) shown++;
    });
    count.textContent = found === null ? many(skills.length) : shown + " of " + many(skills.length);
    empty.hidden = shown !== 0;
  }
  form.hidden = false;
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  box.addEventListener("input", update);
  update();
  document.querySelectorAll(".cmd").forEach(function (cmd) {
    var code = cmd.querySelector("code");
    var button = document.createElement("button");
    button.type = "button";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy: " + code.textContent);
    button.addEventListener("click", function () {
      var done = function (text) { button.textContent = text; setTimeout(function () { button.textContent = "Copy"; }, 1500); };
      if (!navigator.clipboard) return done("Select");
      navigator.clipboard.writeText(code.textContent).then(function () { done("Copied"); }, function () { done("Select"); });
    });
    cmd.appendChild(button);
  });
})();
`;
