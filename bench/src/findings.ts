// What profiling ours against the synchronous floor found, and what each change bought. Written
// by hand from the measurements it names (not from this run); the report prints it as is.

/** The findings section of BENCHMARKS.md (Markdown, no heading). */
export const FINDINGS = `Profiled with \`node --cpu-prof\` and timed by CPU time (user + system) of
the load in fresh processes, medians of 7, at 100 and 1,000 skills, on the 2-core machine while
it was shared (load average 8–12, so wall times were two to three times the CPU times).

- **Crawl**: discovery's scanner costs about what fdir's \`crawl().sync()\` does (8.7 vs 7.9 ms
  CPU at 100 skills); both are \`readdirSync\` with file types. There is no \`realpath\` or
  \`stat\` per file: one \`stat\` and one \`realpath\` per root.
- **Reading**: one \`open\`, \`fstat\`, \`read\` of an 8 KiB head and \`close\` per SKILL.md, the
  same system calls as \`readFileSync\`.
- **Permissions**: nothing is compiled during a load without a policy (the benchmark passes none).
- **YAML parse: the difference.** js-yaml, cold in a fresh process, cost about 130 µs per
  SKILL.md at 100 skills and still about 110 µs at 1,000 — more than reading the file. Importing
  \`@skill/core\` also loaded js-yaml and, through js-yaml 3's full schema, esprima.

Changes, each in its own commit, in the package that owns the cost:

| change | what it bought |
| --- | --- |
| \`@skill/core\`: read simple frontmatter without js-yaml (one-line and quoted strings, \`\\|\`/\`>\` blocks, \`[a, b]\` lists, one level of \`metadata:\`; anything else still goes to js-yaml, results checked equal against js-yaml) | CPU time of a load: 36.6 → 25.3 ms at 100 skills (−31%), 199 → 154 ms at 1,000 (−22%). Every generated skill and 58 of the 68 real skills of the corpus take the simple path. |
| \`@skill/core\`, tried, not kept: load js-yaml on first use instead of on import | \`import("@skill/core")\`: 84–92 → 15–22 ms wall (loaded machine), but a \`require\` made at run time is invisible to bundlers: the bundled CLI (and any application bundling \`@skill/core\`) failed on the first frontmatter the simple reader declined. Reverted to a static import. |
| \`apps/demo\`: import \`@skill/mcp\` only for a command that uses an MCP server | \`skill list\` at 100 skills, whole process: 238 → 111 ms (\`node -e 0\`: 24 ms), medians of 15. Importing \`@skill/mcp\` (the MCP SDK and zod) took about 160 ms on every command. |
| \`apps/demo\`: one bundle (tsup \`noExternal\`, split), each command imported when it runs, \`@skill/remote\` only when a pack is configured | \`skill list\` at 100 skills, whole process: about 165 → 94 ms (\`node -e 0\`: 23 ms), medians of 15; \`skill --version\` loads only commander and the context. |
| \`@skill/core\`, tried, not kept: find the frontmatter's line ends with \`indexOf\` instead of a closure per character | no measurable change (150 vs 152 ms CPU at 1,000 skills). |
| \`apps/demo\`: measure text that is all ASCII, Latin-1/Extended and common punctuation (and controls, which take no column) without string-width; string-width and the \`Intl.Segmenter\` load on first use (output.test.ts checks every such code point against string-width) | \`skill list\` no longer builds string-width's \`Intl.Segmenter\` (ICU data, 17–28 ms alone on this machine) and its four Unicode property regexes (the RGI emoji set: 22–34 ms) at start-up: sampled time of a \`skill list\` process under \`--cpu-prof\` 360 → 133 ms. |
| \`apps/demo\`: \`@skill/remote\` only for \`pull\`, \`verify\` or a configured pack (it was imported for its default cache folder) | 108 KB of code and \`node:zlib\` no longer load for \`list\`. |
| \`apps/demo\`: \`skill list\` writes its table in one write and works out each source's label once | one \`write\` instead of 102, and 3 labels worked out instead of 100 (\`path.relative\` on cold code, about 4 ms of the table's time); small against the noise of a whole process here. |
| \`apps/demo\`: \`dist/cli.js\` turns on \`module.enableCompileCache()\` before it imports the CLI, where the running Node has one (22.1+) | nothing on Node 20 (there is none); on Node 22, later starts read compiled code from the cache (see the start-up section). |
| \`apps/demo\`: the bundle gives commander a stand-in for \`child_process\` and \`@skill/core\` stand-ins for \`crypto\` and js-yaml, each loading the module on first use (\`skill list\` on simple frontmatter uses none of them); the version is bundled from package.json instead of read at start-up | built-in modules a \`skill list\` process loads beyond \`node -e 0\`'s: 79 → 56 (no \`child_process\`, \`dgram\`, \`crypto\` and its 20 internal modules, \`zlib\`); about 1–3 ms of CPU each on their own here; js-yaml's evaluation (its schemas) no longer runs at start-up. Together about 5 ms of CPU (94 vs 99 ms, interleaved series of 25). |
| \`apps/demo\`: \`displayPath\` tells a path below cwd or home by its prefix (plain POSIX paths; checked against \`path.relative\`), and cutting to no limit (output not to a terminal) skips measuring | the table phase of a \`skill list\` of 100 rows: about 8.7 → 3.7 ms (phase timestamps, medians of 15). |
| all of these, \`skill list\` at 100 skills, whole process on Node 20 | CPU time (user + system, \`wait4\`), interleaved series of 25 against the build before them, load average 5–11: 114–128 → 85–88 ms, \`node -e 0\` 19–21 ms. \`pnpm bench --only startup\`, three runs: 3.32×–5.82× of \`node -e 0\` (the quietest: 71.4 / 19.1 ms, 3.74×), and 0.78–0.83× of Vercel's \`skills list\` (71.4 / 85.8 ms). |
| \`@skill/core\`: the same, kept this time, for text and for the bytes of a head read, wherever there is no \`\\r\` | in a fresh process at 100 skills the closure per character was the largest self time of the analysis (\`locateFrontmatter\` + \`findDelimiters\`, about 14 of 75 ms sampled under \`--cpu-prof\`); after it, neither is among the top entries. At 1,000 skills it is still within noise. |
| \`@skill/core\`: \`update\` of a file that keeps its name replaces its winner alone (\`patchRegistry\`); the registry is built with plain loops and reuses a slot's winner | \`service.update\` of one file among 10,000: 104 → 1.1–2.9 ms median (1/19 → 1/330–1/670 of a full reload) over seven runs of \`pnpm bench --size L\`. |
| \`@skill/core\`: a cached head's hit does not run \`checkFrontmatter\` again (its findings are kept in the head), nor build an error text for an error that did not happen; one options object per owner; no \`await\` per entry | warm start at 100 skills: +16.6 → +2.3 to +5.9 ms over crawl + stat; at 1,000: 1.36× → 0.95–1.24×; at 10,000: 1.71× → 1.11–1.64× (seven runs, load average 3–15; see below for CPU times). |
| \`@skill/discovery\` (\`compareAgents\`): folder listings shared by all agents' scans (\`RootsScanOptions.listings\`); root stubs from the root's own files (\`skillFiles\` gains \`maxDepth\`; it walked every root to its last bundled file); an agent whose scans and rules are another's takes that load (a memo of each cached head's outcome across agents, also tried, saved about 2% of doctor and cost about 2.5% of a warm start at 10,000: not kept) | \`skill doctor\` at 1,000 skills / one preset's load: 5.12× → 3.0–3.8× wall over seven runs (loaded machine), about 3.3× CPU time. |
| \`@skill/core\` \`sharedReads()\` (option \`sharedReads\`), used by \`compareAgents\`: the agents' loads open and read each SKILL.md once between them, split and YAML-parse each text once, make each parse JSON data once and find each file's spec findings once per judging (strictness, target); each load still applies its own rules, so every cell is as before. The head cache keys on the state that one read saw (no \`stat\` per load), then is dropped from \`compareAgents\` (with the memo a second load is as cheap without it); the scan for skills past the agents' limits reuses the shared listings | \`skill doctor\` at 1,000 skills / one preset's load: 3.95× (431 / 109 ms) → 2.81–3.10× over six runs of \`pnpm bench --only doctor\` (load average 2–3.3); in one process, warm, 2.5–2.7×. |
| \`@skill/core\` \`fileHeadCache\`: a few changes against a large cache are appended to the file as records (format version 2: the document line, then one record per line) instead of writing the whole cache again | a warm start that finds one edited SKILL.md among 10,000: the flush wrote the 6.6 MB file again (about 45 ms in-process: one \`JSON.stringify\` of 10,000 heads, then the write) and now appends one record of about 150 bytes (under 2 ms). The row "one changed among 10,000 / none changed": 1.10–1.11× → 1.01–1.03× in three \`--only load\` runs. |
| \`@skill/core\`: a slot that loaded is its own winner (no second object and \`WeakMap\` entry per winner); a mapping of strings becomes frozen data in one pass (not a node count, a copy and a freeze); a bulk load makes each skill once, without its body (it was made with it, then copied without it and frozen again); the load reads its clock every 8 files; a head cache hit notes its use instead of moving its entry to the end of the map, \`deepFreeze\` walks objects only, and a cached head keeps findings only when there are some | interleaved fresh processes against the build before them: 1,000 skills cold, medians of 15, CPU 168 → 153 ms and wall 111 → 107 ms; 10,000 skills, medians of 9, cold 794 → 768 ms and warm 617 → 600 ms. |
| \`@skill/core\` \`fileHeadCache\`: the document is written in columns (format version 3): the paths, six numbers per entry (dev, ino, size, mtimeMs, storedAt, shared), each frontmatter, and the other head fields once for every head that holds the same (the service's load-rules fingerprint was repeated in all 10,000 heads; a head's \`size\` is left out when it is the file's). Entries read stay in the columns until used; a head is made and frozen when \`get\` returns it. Versions 1 and 2 are still read | the cache file at 10,000 skills: 6.5 → 5.2 MB; reading, parsing and checking it, alone: about 250 → 125 ms on a slow machine (one array of numbers and one of frontmatter instead of an entry, a head and a frontmatter object per path). The core's warm path over a listed tree (stat, cache, registry; no crawl), interleaved fresh processes, load average 2–4: 633 → 611 ms at 10,000 (medians of 11), 71.5 → 67.9 ms at 1,000 (21). |
| \`@skill/core\`: \`analyzeFields\` makes no closure per skill (five, for line lookup, the check and three error builders used only on failure), a skill without findings skips placing them, and \`strictRejection\` returns at once when there are none; frontmatter whose values are plain, or lists and mappings of plain values one level down (a \`metadata\` mapping, an \`allowed-tools\` list), becomes frozen data in one pass | the same warm path, against the code before the column cache: 107 → 91.6 ms at 1,000 (medians of 21), and with the one-pass data too, 564 → 535 ms at 10,000 (9); a cold load of 1,000 listed skills 309 → 303 ms wall, then with the one-pass data 272 → 257 ms CPU (15); of 100, 23.4 → 21.2 ms (25). The machine was loaded (a second job on the other core) during these measurements. |
| \`@skill/search\`: a first build makes fewer throwaway arrays (a name without capitals skips the camelCase split, keywords are joined without lists), hands MiniSearch its documents' ids and field lengths as arrays by short id instead of two \`Map\`s of 10,000 entries, puts each term's per-field lists straight into its term tree, and records each word with fewer steps (two arrays fewer, room made once per field) | \`createSkillIndex\` of 10,000 skills, first in a fresh process, the bench's timed steps, 21 interleaved pairs against the build before: wall 346 → 255 ms, CPU 466 → 336 ms (allocation during a build 57 → about 42 MB); later builds 196 → 143 ms; query 1.15 → 0.92 ms; \`replace\` unchanged; results and scores identical. Tried and dropped: pre-sized record arrays and one function per phase of the fill (each under 5%), reading plain text in place without a words array (slower). |
| \`@skill/search\`: a build finds the words of a field that is plain ASCII (and of a name without capitals) by one scan of its characters, and looks each word up in a table of the build hashed on those characters; only a word the build has not met becomes a string and goes through the \`Map\`s and the stemmer. Other text still takes the regular expressions. | \`createSkillIndex\` of 10,000 skills, first in a fresh process: 258 → 237 ms (medians of 14 interleaved pairs, median paired difference −20 ms); later builds in the same process 141 → 157 ms. The variant measured and dropped before (see below) ran one larger scanning function; this one keeps the per-word steps in small methods, which the engine compiles early. A scan that also took apostrophes, other scripts and punctuation (no regular expression for 10% more of the fields) was 11–22 ms slower in a first build and was dropped. |
| \`@skill/search\`: \`replace\` compares the list given last time with the new one position by position when they differ only in skills replaced by new objects of the same names (every name distinct and valid); anything else still goes by name | \`replace\` of one changed skill among 10,000: 4.4–4.5 → 0.2 ms (medians of 350 calls). A \`Map\` of every name was built on each call: about 4 ms of it. |
| \`@skill/core\` \`fileHeadCache\`: the file is read into one buffer of the size \`fstat\` gives and decoded at once, instead of \`readFileSync(fd, "utf8")\` | reading the 5.2 MB file of 10,000 heads on Node 20: 71–99 → 51–66 ms (fresh processes); the bench's warm start at 10,000: 1,300 → 1,249 ms (medians of 8 interleaved pairs); no change at 1,000. |
| \`@skill/core\`: \`codePoints\` counts units less surrogate pairs (one regular-expression scan tells when there are none) instead of iterating the text; the validation's known fields are sets made once | cold load of 100 skills: 37.2 → 36.4 ms (medians of 14 interleaved pairs): iterating each name and description ran interpreted on a first load, about 2 of the 58 sampled ms. |
| \`@skill/discovery\` (\`compareAgents\`): rows are named without an async function and a promise per location; only a SKILL.md no agent reached is read for its name | \`compareAgents\` at 1,000 skills, interleaved fresh processes: CPU 1,034 → 1,005 and 1,177 → 1,132 ms (12 and 16 pairs); wall times within the machine's noise. |
| \`@skill/core\`: \`all()\` sorts a registry's winners once, on first use, and filters that list per call | for a harness that asks for the list on every turn; \`compareAgents\` at 1,000 skills showed no change beyond the noise (634 against 619 ms, 14 pairs). |
| \`@skill/core\`: a head the service stores in its cache keeps its findings without the file's path (a text that names the file is kept as the parts around it, put together again on a hit), so files with the same findings have heads with the same findings, and the cache file stores that set once | the cache file of the 10,000-skill tree: 5.2 → 4.1 MB (its \`shared\` column 1,919 sets of about 1 MB → 29 sets of 11 KB: each of the 1,918 skills with an unknown field had its own set, because the finding's message and path named its file). The bench's warm start at 10,000, interleaved fresh processes against the build before: 1,226 → 1,199 ms (medians of 8 pairs; every pair lower, median paired difference −30 ms), crawl + stat 970 ms beside them. |

What is left at 100 skills, after these changes (wall, medians of 9–11, load average below 2):
the floor takes about 9 ms, of which its crawl is 7; ours takes 19–23 ms, of which discovery's
crawl is 8. Reading the 100 files, analysing them and building the registry take ours about
15 ms where reading takes the floor 2: the analysis alone, on the same 100 texts already in
memory, is about 7 ms, because \`analyzeSkill\`, \`validateFrontmatter\` and \`deepFreeze\` run
cold (interpreted) for most of the 100 files; the rest is the service's own first-time work
(slots, precedence, freezing) that the floor does not do.

Elsewhere, from the same kind of measurements (load average about 3):

- **\`skill list\` at 100 skills**, before \`@skill/mcp\` joined the CLI: 126 ms against 26 ms
  for \`node -e 0\`; importing the CLI's modules alone took 88 ms. Each import on its own, after
  \`@skill/core\`: commander 14 ms,
  cli-progress 12, \`@skill/discovery\` (picomatch) 12, \`@skill/remote\` 9, picocolors 6,
  \`@skill/core\` 6, \`@skill/audit\` 5, \`@skill/format\` 2, \`@skill/permissions\` 2. The CLI
  is now one bundle whose commands load when they run (see the table), and string-width loads
  only for text that needs it. Where a \`skill list\` process on Node 20 spends its time now
  (timestamps at each phase, medians of 15, load average about 5; \`node -e 0\` took 20 ms then):
  Node's own start-up until \`dist/cli.js\` runs, 21 ms; the ten bundle chunks \`list\` imports
  (commander, core with js-yaml unevaluated, discovery with picomatch, context, config,
  permissions, output: about 550 KB), 19 ms — under \`--cpu-prof\` mostly compiling them and
  Node's ESM loader with the built-in modules they import (\`fs/promises\`, \`net\` for a piped
  stdout, \`perf_hooks\` behind the \`performance.now()\` of core and discovery's time slices);
  commander building the program and parsing argv, 4 ms; the context (config, policy), 3 ms; the
  \`list\` chunk and the service, 3 ms; \`discoverAndLoad\`, 23 ms (the same load as the
  100-skill rows, cold); the table and exit, 4 ms. So 2× of \`node -e 0\` (about 40 ms) is out of
  reach on Node 20 while every start compiles the CLI and loads the skills again: the load alone
  is longer than Node's start-up. What it would need: Node 22's compile cache (on Node 22.23
  \`skill list\` takes 67 against 71 ms on Node 20 in the same run; \`dist/cli.js\` turns it on)
  or a V8 startup snapshot (which \`node dist/cli.js\` cannot use without a flag) for the module
  phase, and a head cache kept between starts (contract 3's \`fileHeadCache\`, persisted by the
  CLI) so that a start is a crawl and a \`stat\` per skill, not a read and parse of each.
- **\`service.update\` at 10,000 skills**: before the change above, about 11 ms warm (19 ms in a
  fresh process), two thirds of it resolving precedence again over all 10,000 slots and an
  eighth diffing the winners. Now an edit that keeps the file's name, inode and origin, of a
  file that held its name, replaces that winner and the file's findings in place; a rename, a
  failure, a shadowed or added or removed file still resolves everything (about 3–5 ms at
  10,000 with plain loops), and a test checks every case against a fresh load.
- **Pulls**: a v0.2 archive was downloaded, verified and unpacked inside one request slot, so
  while a skill was being unpacked that slot sent nothing. \`@skill/remote\` now takes a request
  slot for the download alone and keeps twice as many digest-pinned skills in progress as
  requests in flight. The rest of the gap between the bench (2.5–2.9×) and
  \`packages/remote/scripts/measure-pull.mjs\` (3.97×) was the harness: the bench machine's ext4
  has no journal, and then the kernel's inode allocator skips, one by one, every inode of its
  block group freed in the last minute or more (\`recently_deleted\`; about 80% of a create
  loop's time under \`perf\`). The bench deleted each run's 4,000 files right before the next
  run, so each \`mkdir\` and \`open(O_CREAT)\` of the next pull cost 0.3–0.8 ms instead of about
  20 µs: 2–4 s of kernel time in either pull, and, as it depends on what was deleted nearby
  lately, the 2× spread between runs. \`measure-pull.mjs\` deletes nothing between its pulls.
  The cold series now keeps its copies until it ends. Interleaved, the bench's server and pack,
  the same code: deleting between runs, v0.1 7,302 ms against v0.2 2,838 ms (2.6×, medians of
  7); keeping the copies, 5,898 against 1,506 (3.9×, medians of 8). What a cold v0.2 pull
  spends now is the network (floor 1.25 s: 500 archives, 8 at a time, 20 ms): with its file
  writes stubbed out it took 1,479 ms against 1,491. The pull also loads its modules while it
  waits for the lock and the index, skips the \`rm\`/\`stat\` of scratch it never made or
  already renamed into place, and unpacks a verified archive one event-loop turn later (so the
  request its freed slot starts goes out first): 1,719 → 1,630 ms (medians of 12 interleaved
  pairs, load average 2.6–3.3; 1,770 → 1,706 in 8 others). \`pnpm bench --only remote --runs 7\`
  after these changes: v0.1 6,126 ms, v0.2 1,511 ms (4.06×, load average 0.6–1.9); before the
  last of them, 6,174 against 1,622 (3.81×, load average 2.1–3.0).
- **Warm start** (\`fileHeadCache\`, every head answered from the cache), after the changes
  above; CPU time of the load, fresh processes, medians of 5–11, load average 9–11: 14.4 ms
  against 11.4 for crawl + stat at 100 skills, 113 against 86 (1.31×) at 1,000, 809 against
  544 (1.49×) at 10,000. What a warm start at 10,000 pays beyond crawl + stat, sampled under
  \`--cpu-prof\`: reading the 6.4 MB cache file (\`JSON.parse\` and its entry checks, about
  70 ms), the garbage those 10,000 entries leave (about 100 ms of collector), each hit
  (\`stat\` as crawl + stat does, the key check, the skill made from the head: about 100 ms)
  and the registry (about 45 ms). The 10,000-skill row stays missed: what would bring it to
  1.3× is a cache file that is cheaper to read than JSON of every head — e.g. the heads
  stored once per rules fingerprint instead of per entry, or a binary or line format read
  lazily per path — which is a change of the file format (contract 3), not of the loader.
- **\`skill doctor\` at 1,000 skills** (every preset): 2.81–3.10× one preset's load in
  \`pnpm bench --only doctor\` on the loaded machine (was 3.95×). The 11 presets have 7
  distinct load-rule sets and 9 distinct loads; each SKILL.md is now read, split, parsed and
  checked once for all of them (\`sharedReads\`), and no load \`stat\`s a file. What is left,
  sampled: the scans (about one preset's, the listings being shared), the first load's reads
  and parses (one preset's), each further load's registry (\`buildRegistry\` and its
  per-slot winner memo, a \`WeakMap\`) and skill objects, and garbage collection (about 60–80
  ms of about 300, against about 17 for one preset: the listings, the memo and every load's
  report live until the end). Further down would need loads that share their registries'
  work across agents with the same rules, or fewer objects per load.
- **Cold start at 100 skills**: 20.6 ms CPU against 10.4 for the floor (fresh processes,
  medians of 11); the same load run a second time in the same process takes about 11 ms,
  so about 9 ms is first-run cost: discovery, parse, validation and the service run
  interpreted and compile lazily for most of the 100 files. No single function stands out
  in the profile any more (the largest were the delimiter scan, now gone, then
  \`checkFrontmatter\` and \`parseSimpleMapping\` at a few ms each). Reaching 1.5× would need
  that code compiled before the clock (a V8 code cache, which Node 20 has no API for) or a
  load path with far less code per file. The **warm start at 100 skills** is the same: in one
  process, a warm load run after a first one is within 1.5–2.8 ms of crawl + stat (four
  rounds each, interleaved), and the first one is 6–11 ms above it; the excess is that first
  run's code (discovery, the cache, the service), not work per skill.
- **Skills over MCP at 1,000 skills**: \`skill serve-mcp\` walked each listed skill's folder
  again for every \`skills/list\` page (\`service.files\`: \`lstat\`, \`realpath\`, \`readlink\`
  per bundled file, some 20,000 files) and \`stat\`ed each file for its digest; a timed load
  was 5–12× the load from disk. \`@skill/mcp\`'s server now keeps each skill's file list and
  entry while the registry, the skill's folders and its files are unchanged (one \`stat\` of
  SKILL.md, of each folder holding its files and of each file, so that a file edited in place
  is listed anew at once) and takes the served skills once per registry version; \`mcpSource\`
  works out a skill's own files when they are first asked for. Runs of \`--only mcp\` at load
  average 8–10: 5.07× before (1,401 / 276 ms); 0.46–0.84× with folders checked alone; 1.05×
  (240 / 228 ms) with every file checked too, which costs about 10 ms per 500 skills. Under \`--cpu-prof\`, a listing now costs the server about 25 ms
  of \`stat\`s and 20 ms serializing and writing 2 MB of JSON (20 pages), and the client about
  15 ms registering 1,000 skills from their heads, 7 ms building the registry and 7 ms parsing
  the pages.
- **Rows at their limit.** Three full runs of \`pnpm bench --size L --check --runs 7\` of nearly
  the final code, one after another on the otherwise idle machine (load average 0.1–1.9), gave:
  cold 1,000 skills 1.21×, 1.25× and 1.42× (≤ 1.4; it was 1.42× and 1.57× before the changes
  of the table's last rows); cold 10,000 1.21×, 1.24×, 1.18× (≤ 1.3; was 1.25× and 1.33×);
  warm 1,000 1.22×, 1.19×, 1.30× (≤ 1.3); warm 10,000 1.30×, 1.31×, 1.29× (≤ 1.3); one changed
  file among 10,000 0.98×, 1.04×, 1.05× (≤ 1.1; was 1.10× and 1.11×); the cold v0.2 pull
  4.13×, 4.10×, 3.92× faster (≥ 3×; was 2.51× and 2.90×); \`skill doctor\` 2.94×, 3.07×,
  2.96× (≤ 3); \`createSkillIndex\` at 10,000 142, 160 and 172 ms (≤ 150). The machine itself
  slowed over the three runs (\`node -e 0\` 21.8, 25.4 and 23.4 ms; crawl + stat at 10,000
  467, 502 and 497 ms), which moves the absolute rows, and the ratios at their limit flip
  with the run. The warm start at 10,000 is the row that stays at its limit: beyond crawl +
  stat it pays, sampled under \`--cpu-prof\` and \`--trace-gc\`, about 35 ms to read, parse
  and check the 6.6 MB cache file, about 40 ms of young-generation collections that copy the
  parsed heads (some 27 MB that stay alive: the skills keep them) out of the nursery, and
  about 60 ms for the hits and the registry. What would give it a margin is a cache that is
  not 10,000 heads of JSON objects to parse and keep alive — heads stored once per rules
  fingerprint in a compact form read lazily, for example — or fewer objects per skill.
- **What else was tried at those rows.** A fourth run of the load group alone (\`pnpm bench --size L --only load --runs 7\`, on a slower day: \`node -e 0\` took 28 ms beside it, against 22–25 ms in the full runs) gave cold 1,000 1.24×, cold 10,000 1.21×, warm 1,000 1.34× and warm 10,000 1.29×. At 1,000 skills the discovery scan plus a \`stat\` of each SKILL.md costs what fdir's crawl plus the same \`stat\`s cost (61.6 against 60.4 ms, medians of 15 interleaved fresh processes, the same 10,324 \`getdents64\` calls under \`strace -c\`): the crawl is not where the warm start loses. The other 19 ms or so are the core's load. Sampled with the inspector's profiler (six profiles at 25 µs), that is 5 ms reading and parsing the 640 KB cache file, 3 ms building the registry, 2 ms resolving precedence, 2 ms for the hits themselves, 2 ms more garbage collection than the reference, and the rest spread over functions of under 1 ms each, most of them still unoptimized at this size. Two changes to \`createSkillIndex\` were measured and dropped. Scanning plain-ASCII fields character by character into a table hashed on the characters (no substring for a word already seen) was slower in a fresh process: 173 against 138 ms, medians of 12 interleaved pairs, because the per-character loop runs interpreted for most of a first build while the regular expression runs compiled. Keeping one small object per term for its per-field posting lists, instead of a \`Map\`, was 2% faster (134 against 137 ms), within the noise, and held 0.2 MB more. Of a first build at 10,000 skills, about 25 ms is garbage collection while the heap grows (\`--trace-gc\`: six scavenges and a mark-compact); a later build in the same process takes 80–100 ms.
- **After the column head cache, the analysis without closures and the faster first index
  build** (the table's last three rows). The run of this report was made on a slower machine
  than the runs above: \`node -e 0\` took 68.5 ms in its start-up rows and about 100 ms timed
  from a shell (22–25 ms before), page faults and file reads were several times slower, and
  so every absolute time is two to three times the earlier ones; ratios shift too (Node's own
  start-up is a larger share of \`skill list\`, the crawl's system calls a larger share of a
  load). In it: cold 1,000 1.01× and cold 10,000 1.01× (≤ 1.4 and 1.3), warm 1,000 1.29×
  and warm 10,000 1.27× (≤ 1.3), \`skill doctor\` 2.70× (≤ 3), the cold v0.2 pull 3.54×
  faster (≥ 3). Where the core's warm path at 1,000 skills spends its time now (a listed tree,
  no crawl; the inspector's profiler at 25 µs, ten fresh processes, its own overhead left
  out): garbage collection 15%, the \`stat\` calls 12% (crawl + stat makes the same),
  reading the 500 KB cache file 10%, Node's \`Stats\` objects and their four dates 10%,
  freezing the heads 9% (\`deepFreeze\`, a generic iterative walk, on its first thousand
  calls), the hit itself 5%, parsing the file 4%, the rest in pieces of 1–3%. At 10,000 the same profile gives the \`stat\` calls 23%, garbage collection 15%,
  reading the 5.2 MB file 14% and parsing it 7%, precedence 5%. What would still give the
  warm rows a margin: a cache read without a string of the whole file (the heads parsed
  from the bytes as each is used), and \`stat\` without a \`Stats\` object (Node 20 makes
  four \`Date\`s for each; Node 22 makes them on use). \`createSkillIndex\` at 10,000 measured
  267 ms here (p90 292); against the build before its changes on this machine, interleaved,
  it went from 346 to 255 ms (21 pairs), about a quarter less, which on the machine of the
  runs above (142–172 ms) would be about 105–130 ms. The three rows missed in every run —
  the cold and warm starts at 100 skills and \`skill list\` against \`node -e 0\` (2.86× in
  this run: 196 against 68.5 ms) — are first-run costs of compiling and running code once,
  as described above.
- **After the word scan, the in-place \`replace\`, the buffered cache read, the cheaper
  code-point count, the row naming of \`compareAgents\` and the sorted winners** (the table's
  last six rows). The report is the fourth of four full runs of
  \`pnpm bench --size L --check --runs 7\` made one after another on the same slower machine as
  the run above (\`node -e 0\` 79–87 ms in the start-up rows): the first of the code with the
  word scan only, the second and third before the last two changes, the fourth of the final
  code. Met in all four: cold 1,000 and 10,000, peak RSS, the \`service.update\` rows,
  \`skills list\`, the pulls, \`skill add\`, MCP, query, \`skillTools\` and recall.
  \`replace\` went from 5.17 ms (missed) to 0.45–0.49 ms. The rows at their limit moved with
  the machine more than with the code: cold 100 skills 1.66×, 1.54×, 1.31×, 1.69× (≤ 1.5);
  warm 1,000 1.25×, 1.57×, 1.25×, 1.32× (≤ 1.3; the load group alone after the second,
  \`pnpm bench --only load --runs 9\`, gave 1.32×); warm 10,000 1.33×, 1.32×, 1.27×, 1.32×
  (≤ 1.3); one changed file among 10,000 1.02×, 1.08×, 1.24×, 1.04× (≤ 1.1); \`skill doctor\`
  3.10×, 3.08×, 3.06×, 2.82× (≤ 3; 2.70× in the run above). Within a run, whole rounds ran slow: in the third run
  crawl + stat at 10,000 took 1,401–1,406 ms in its first two rounds and 981–1,049 in four of
  the other five, and the one-changed row's median fell on slow rounds; in the second, the
  1,000-skill warm runs took 170–225 ms while the same runs with one file changed took
  170–211, and the code before and after this session's core changes, interleaved on the same
  tree, measured 161.7 against 159.6 ms (12 pairs). At 1,000 skills a warm start makes the
  system calls crawl + stat makes (\`strace -c\`: 10,324 \`getdents64\`, 5,174
  \`newfstatat\` in both; 175 more \`statx\`, from resolving modules at import), discovery's
  crawl costs what fdir's does, and the rest is the core, sampled at 25 µs over 8 fresh
  processes each: decoding the 500 KB cache file about 6 of 291 sampled ms, precedence 6,
  garbage collection 21 against 15, then the registry, freezing and the hits at 1–2 ms each,
  most of it still interpreted at this size. \`createSkillIndex\` at 10,000 measured 256, 275,
  276 and 254 ms here (≤ 150): interleaved against the build before the word scan on this machine,
  258 → 237 ms (14 pairs); with the changes of the run above, a first build here takes about
  70% of what it took before them, so on the machine of the earlier runs (142–172 ms for the
  code before) it would be about 100–120 ms — a projection, not a measurement. What a first
  build spends now (10,000 skills, sampled at 100 µs): the per-word scan and its table about
  45 of 226 ms, the build's own loops (sorting the records, the term lists) 35, the \`Map\`s,
  lower-casing and stemming of the words met for the first time about 50 (stemming itself
  11), the plain-text test of each field 26 (most of it making the bench's concatenated
  descriptions flat strings), the regular expressions for the fields that are not plain
  ASCII (one description in ten, and the names with capitals) 21, MiniSearch's term tree 10, and about 25 ms of garbage collection (three
  scavenges and a mark-compact). The other missed rows are the first-run costs described above:
  the warm start at 100 skills (+5.5 to +10.6 ms over crawl + stat; ≤ +3) and \`skill list\`
  against \`node -e 0\` (2.65× to 3.15×; ≤ 2).
- **References beside the rows that miss** (the table's last row; the run before this report's
  is of that code, on the same slower machine: \`node -e 0\` 68 ms in the start-up rows). Three
  references now run in the same interleaved series as the rows they explain. *Start-up*: a minimal list process (\`bench/src/floor-list.ts\`: the floor's crawl
  of the same roots, \`readFileSync\` of each SKILL.md, name and description read without YAML,
  a line each) took 1.89× \`node -e 0\` in this run and 2.15× and 2.21× in two runs before it
  the same day: of the 137 ms that 2× allows here, it leaves 7.6 ms for everything else
  \`skill list\` does. \`skill --version\` alone (commander and the context, no skills) took
  140 ms against 67 for \`node -e 0\` (medians of 21, the bench's empty environment); imported
  one by one in a fresh process, the core's chunk took 14.5 ms, discovery's with picomatch 11,
  commander's with the CLI 12, the output's 5.4 (medians of 6). Ten ES modules of one line cost
  0.7 ms each over one module (79.8 against 72.7 ms, medians of 25); a minified bundle
  (whitespace and syntax only, or whole) made no measurable difference (\`--version\` 140 against
  140 ms, medians of 21) and was not kept; js-yaml's 106 KB, bundled but not evaluated, compile
  in 2 ms. What 2× would take here is a start that loads a few milliseconds of modules at most,
  and skills not read (a head cache kept between starts: crawl + stat takes 16.6 ms at 100
  skills where the read floor takes 20.8) — with under 8 ms left for the rest. (This machine's
  shell sets \`NODE_EXTRA_CA_CERTS\`, which costs \`node -e 0\` about 40 ms at start: 106 against
  67 ms. The bench spawns every process with an empty environment, so its rows do not pay it.)
  *Search*: a bare word map (name and description lower-cased, split, one \`Map\` of word →
  skills) built first thing in a fresh process took 164 ms (183 in the run before), untuned
  MiniSearch's \`addAll\` 842 ms (923): the 150 ms target is below what a first build that only
  splits and counts words costs on this machine. Ours, at 239 ms, also keeps fields, counts,
  stems and MiniSearch's term tree, 3.5× faster than MiniSearch itself; on the machine of the
  earlier runs it measured 142–172 ms before the last two changes to it. *Warm start*: crawl +
  stat with the head cache file read, parsed and each SKILL.md looked up in it (no records, no
  checks, no registry) took 19.5 ms at 100 skills against 16.6 for crawl + stat — 2.9 of the
  3 ms the row allows, before a single skill is made — 129 against 118 ms at 1,000 (1.09×; ours
  160, 1.36×) and 1,103 against 1,000 ms at 10,000 (1.10×; ours 1,242, 1.24×, met with the
  smaller cache file of the table's last row).
- **How much is the first run of the code.** The cold load of 100 skills four times in one
  process (the bench's child, five processes): 32–51 ms the first time, 16–20 ms the third and
  fourth, while the synchronous floor takes 16–30 ms each time: at 100 skills the whole gap
  to the floor is the first run of the core's code (compiled on first call, interpreted while
  it warms up); once compiled, a load of 100 costs what the floor does. At 1,000 skills warm,
  the same way: 145–151 ms first, 110–128 after; crawl + stat 113–130 first, 84–97 after — about
  1.3× either way, so at 1,000 the warm start is not only first-run cost. Sampled after three
  warm-up loads (ten loads at 50 µs, one process), what a warm load of 1,000 spends beyond crawl
  + stat: garbage collection 2.2 ms, the \`stat\` calls 3.8 (the same calls; the kernel's time),
  decoding the cache file 1.9 and parsing it 1.4, discovery's directory entries 1.2, precedence
  1.8, the hits 1.2, then the registry, freezing and the fields' checks under 1 ms each. What
  would give it a margin: fewer objects per skill on a hit (head, frozen frontmatter, slot,
  metadata, winner), precedence without a string identity per file, and a cache read without
  one string of the whole file.
- **The run before this report's** (the slower machine, \`node -e 0\` 68 ms): 19 of 24 rows
  met. Missed: \`createSkillIndex\` and \`skill list\` against \`node -e 0\`, each against the reference above it; the cold and warm starts at 100 skills
  (1.62× against ≤ 1.5; +10.1 ms against ≤ +3), the first run of the code; the warm start at
  1,000 (1.36× against ≤ 1.3; 1.25×, 1.57×, 1.25×, 1.32×, 1.34× and 1.36× in the last six full
  runs).
  \`skill doctor\` 2.73× (≤ 3), warm 10,000 1.24× (≤ 1.3), one changed among 10,000 1.01×.
- **What the three missed rows need (this report's run).** The run of this report is of the
  code with two more references beside the rows that miss, on a quiet machine about three times
  faster than the one of the runs above (\`node -e 0\` 23 ms; load average 0.64 at the start,
  1.13 at the end; \`--runs 9\`). 21 of 24 rows met, \`createSkillIndex\` (128 ms), warm
  1,000 (1.19×) and \`skill doctor\` (2.95×) among them. The three missed are the fixed costs
  of a fresh process. *Cold and warm starts at 100 skills*: beside them runs ours under
  \`node --no-lazy\`, which compiles every function when its module loads, before the clock,
  instead of on its first call: 15.8 ms cold (1.64× the floor, against ours 18.6 ms, 1.93×) and
  11.5 ms warm (+2.76 ms over crawl + stat, inside the 3 ms the row allows, against ours
  +5.53). V8's own log of a cold load of 100 (\`--log-function-events\`, three fresh processes)
  names about 125 functions of the core and discovery compiled on their first call, the largest
  under 0.5 ms (the crawl loop, the scan's set-up, the cache's columns, precedence): the cost is
  the size of the path that finds, reads, checks and ranks a skill, spread thin, not one
  function to cut. Node's compile cache does not hold these: on Node 22.23.5 with
  \`NODE_COMPILE_CACHE\`, the cold load of 100 in a fresh process took 16.1 against 16.7 ms
  without (medians of 8), since it keeps what compiles when a module loads, not what compiles
  on first call. So the warm row needs the library's code compiled before a process first calls
  it — a code cache made after a first run (V8 can make one; Node offers none for ES modules)
  or a start-up snapshot — and the cold row needs that and more: compiled, it is still 1.64× the
  floor, its per-skill work (the read, the frontmatter reader, the checks, precedence) running
  in the interpreter while it warms; in one process a later load of 100 costs what the floor
  does (above). *\`skill list\`*: 2× \`node -e 0\` allows 46.4 ms here. The minimal list
  process (no CLI) took 52.4 ms (2.26×) and \`skill --version\` alone 55.7 ms (2.40×): the
  CLI's start-up, before a skill is read, is already past the row. Imported one at a time in a
  fresh process (medians of 15): an empty ES module 24.5 ms, the core's chunk 31.8, with
  discovery's 36.1, with the context's 39.0, and \`skill --version\` (commander and the command
  definitions on top) 48.1; under \`--cpu-prof\` the largest single item of the CLI's own time
  is compiling those modules (\`compileSourceTextModule\`). On Node 22 with its compile cache
  \`skill list\` took 75.8 ms against 85.3 on Node 20 (same run). What 2× would need here: a
  start that loads almost no code and reads no skill — the resident \`skill serve-mcp\` and
  \`skill watch\` answer from memory — or a V8 start-up snapshot, which a process started as
  \`node cli.js\` cannot use.`;
