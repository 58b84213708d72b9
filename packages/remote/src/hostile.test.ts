// @module-tag slow: servers that stall, drip and lie, waited out on real timers.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { SkillError, type SkillErrorCode } from "@skill/core";
import { type Handler, type Served, send, serve, until } from "@skill/test-utils";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { skillMd, tempDir, tree } from "../test/server.js";
import { urlToDirName } from "./cache-dir.js";
import type { FetchLike } from "./http.js";
import { type PullOptions, pull } from "./pull.js";

// Every case: a pack with two good skills and one hostile entry (or a hostile answer), served
// from 127.0.0.1. The pull must skip the hostile part with a reason, deliver both good skills,
// request nothing it should not, and write nothing but the pack's cache folder.

const GOOD: Record<string, string> = {
  "good-one/SKILL.md": skillMd("good-one"),
  "good-one/references/guide.md": "# Guide\n",
  "good-two/SKILL.md": skillMd("good-two"),
};
const GOOD_ENTRIES = [
  { name: "good-one", files: ["SKILL.md", "references/guide.md"] },
  { name: "good-two", files: ["SKILL.md"] },
];
const CACHE = "home/.cache/skill/remote";

let root: string;
let cacheDir: string;
let cleanup: () => Promise<void>;
const servers: Served[] = [];
const SENTINELS = ["/etc/x", "/x", "/etc/passwd.skill", "/tmp/x"].filter((p) => !existsSync(p));
const passwdHash = () =>
  existsSync("/etc/passwd") ? createHash("sha256").update(readFileSync("/etc/passwd")).digest("hex") : "";
const passwdBefore = passwdHash();

beforeEach(async () => {
  ({ path: root, cleanup } = await tempDir());
  cacheDir = join(root, CACHE);
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await cleanup();
});

afterAll(() => {
  expect(passwdHash()).toBe(passwdBefore);
  for (const path of SENTINELS) expect(existsSync(path), path).toBe(false);
});

/** Serves the good skills, the given routes, and "PWNED" for any other path (so a stray request would write). */
async function hostileServer(index: (server: Served) => unknown, routes: Record<string, Handler> = {}) {
  let self: Served | undefined;
  const server = await serve((req, res, log) => {
    const path = (req.url ?? "/").slice(1);
    if (path === "index.json") return send(res, log, 200, JSON.stringify(index(self as Served)));
    const route = routes[path];
    if (route) return route(req, res, log);
    const body = GOOD[path];
    return send(res, log, 200, body ?? "PWNED");
  });
  self = server;
  servers.push(server);
  return server;
}

async function expectOnlyGoodSkills(server: Served, extraRequests: readonly string[] = []) {
  const pack = `${CACHE}/${urlToDirName(server.index)}`;
  expect(await tree(root)).toEqual([
    "home/",
    "home/.cache/",
    "home/.cache/skill/",
    `${CACHE}/`,
    `${pack}/`,
    `${pack}/.index.json`,
    `${pack}/.state.json`,
    `${pack}/good-one/`,
    `${pack}/good-one/SKILL.md`,
    `${pack}/good-one/references/`,
    `${pack}/good-one/references/guide.md`,
    `${pack}/good-two/`,
    `${pack}/good-two/SKILL.md`,
  ]);
  expect(await readFile(join(root, pack, "good-one", "references", "guide.md"), "utf8")).toBe("# Guide\n");
  const allowed = new Set(["/index.json", ...Object.keys(GOOD).map((p) => `/${p}`), ...extraRequests]);
  expect(server.requests.map((r) => r.path).filter((p) => !allowed.has(p))).toEqual([]);
}

interface Case {
  readonly entry: unknown;
  readonly code: SkillErrorCode;
  readonly reason: string;
}

const hostileNames: [string, Case][] = [
  [
    "..",
    {
      entry: { name: "..", files: ["SKILL.md"] },
      code: "UNSAFE_PATH",
      reason: 'unsafe name "..": it is ".."',
    },
  ],
  [
    "../x",
    {
      entry: { name: "../x", files: ["SKILL.md"] },
      code: "UNSAFE_PATH",
      reason: 'unsafe name "../x": it holds "/"',
    },
  ],
  [
    "a/b",
    {
      entry: { name: "a/b", files: ["SKILL.md"] },
      code: "UNSAFE_PATH",
      reason: 'unsafe name "a/b": it holds "/"',
    },
  ],
  [
    "a\\b",
    {
      entry: { name: "a\\b", files: ["SKILL.md"] },
      code: "UNSAFE_PATH",
      reason: 'unsafe name "a\\\\b": it holds "\\\\"',
    },
  ],
  [
    "%2e%2e",
    {
      entry: { name: "%2e%2e", files: ["SKILL.md"] },
      code: "UNSAFE_PATH",
      reason: 'unsafe name "%2e%2e": it holds "%" (percent-encoding is not allowed)',
    },
  ],
  [
    "empty",
    { entry: { name: "", files: ["SKILL.md"] }, code: "UNSAFE_PATH", reason: 'unsafe name "": it is empty' },
  ],
  [
    "NUL",
    {
      entry: { name: "a\u0000b", files: ["SKILL.md"] },
      code: "UNSAFE_PATH",
      reason: 'unsafe name "a\\u0000b": it holds a control character',
    },
  ],
  [
    ".hidden",
    {
      entry: { name: ".git", files: ["SKILL.md"] },
      code: "UNSAFE_PATH",
      reason: 'unsafe name ".git": it starts with a dot',
    },
  ],
];

const fileCase = (file: string, reason: string): [string, Case] => [
  file,
  {
    entry: { name: "evil", files: ["SKILL.md", file] },
    code: "UNSAFE_PATH",
    reason: `unsafe file ${JSON.stringify(file)}: ${reason}`,
  },
];

const hostileFiles: [string, Case][] = [
  fileCase("../../etc/x", 'it has a ".." segment'),
  fileCase("/etc/passwd", "it is an absolute path"),
  fileCase("C:\\x", 'it holds ":"'),
  fileCase("a/../../x", 'it has a ".." segment'),
  fileCase("%2e%2e/x", 'it holds "%" (percent-encoding is not allowed)'),
  fileCase("a//b", "it has an empty segment"),
  fileCase("?q", 'it holds "?"'),
  fileCase("#f", 'it holds "#"'),
  fileCase("..\\..\\x", 'it holds "\\\\"'),
  fileCase("https://evil.example/x", 'it holds ":"'),
  fileCase("//evil.example/x", "it is an absolute path"),
  fileCase("./SKILL.md", 'it has a "." segment'),
];

describe("hostile manifest entries are skipped whole; the good ones still arrive", () => {
  it.each([...hostileNames, ...hostileFiles])("%s", async (_title, c) => {
    const server = await hostileServer(() => ({ skills: [GOOD_ENTRIES[0], c.entry, GOOD_ENTRIES[1]] }));

    const result = await pull(server.index, { cacheDir });

    expect(result.files.map((f) => f.split("/").at(-2))).toEqual(["good-one", "good-two"]);
    expect(result.skipped).toHaveLength(1);
    expect(result.skipped[0]?.code).toBe(c.code);
    expect(result.skipped[0]?.reason).toBe(c.reason);
    await expectOnlyGoodSkills(server);
  });

  it("an entry without SKILL.md", async () => {
    const server = await hostileServer(() => ({
      skills: [...GOOD_ENTRIES, { name: "no-skill", files: ["README.md", "run.sh"] }],
    }));
    const result = await pull(server.index, { cacheDir });
    expect(result.skipped).toEqual([
      {
        name: "no-skill",
        code: "MISSING_FIELD",
        reason: '"files" does not list SKILL.md (found ["README.md","run.sh"])',
      },
    ]);
    await expectOnlyGoodSkills(server);
  });

  it("duplicate names: the first wins, also against a different case", async () => {
    const server = await hostileServer(() => ({
      skills: [
        ...GOOD_ENTRIES,
        { name: "good-one", files: ["SKILL.md", "evil.md"] },
        { name: "GOOD-TWO", files: ["SKILL.md"] },
      ],
    }));
    const result = await pull(server.index, { cacheDir });
    expect(result.skipped.map((s) => [s.name, s.code, s.reason])).toEqual([
      ["good-one", "DUPLICATE_NAME", 'duplicate name "good-one": skills[0] already uses it'],
      ["GOOD-TWO", "DUPLICATE_NAME", 'duplicate name "GOOD-TWO": skills[1] already uses it'],
    ]);
    await expectOnlyGoodSkills(server);
  });
});

const TEN_MB = Buffer.alloc(10 * 1024 * 1024, 0x61);
// The timeout also applies to the good files: generous enough for a loaded machine.
const LIMITS: Partial<PullOptions> = { maxFileBytes: 1024 * 1024, timeoutMs: 1000 };
const loopRoutes: Record<string, Handler> = {
  "bad/SKILL.md": (_req, res, log) => send(res, log, 301, "", { location: "/bad/again" }),
  "bad/again": (_req, res, log) => send(res, log, 307, "", { location: "SKILL.md" }),
};
const tenMbAnswer: Handler = (_req, res, log) => send(res, log, 200, TEN_MB);
const stallAnswer: Handler = (_req, res) => {
  res.writeHead(200, { "content-length": "100" });
  res.write("0123456789");
};
const shortAnswer: Handler = (req, res) => {
  res.writeHead(200, { "content-length": "100" });
  res.write("x".repeat(50), () => req.socket.end());
};
const errorAnswer: Handler = (_req, res, log) => send(res, log, 500, "boom");

describe("hostile answers fail one skill; the good ones still arrive", () => {
  async function answerCase(
    routes: Record<string, Handler>,
    files: readonly string[] = ["SKILL.md"],
    options: Partial<PullOptions> = {},
  ) {
    const server = await hostileServer(() => ({ skills: [...GOOD_ENTRIES, { name: "bad", files }] }), routes);
    const result = await pull(server.index, { cacheDir, ...options });
    expect(result.files.map((f) => f.split("/").at(-2))).toEqual(["good-one", "good-two"]);
    expect(result.skipped).toHaveLength(1);
    expect(result.skipped[0]?.name).toBe("bad");
    await expectOnlyGoodSkills(
      server,
      Object.keys(routes).map((p) => `/${p}`),
    );
    return { server, skipped: result.skipped[0] as { code: string; reason: string } };
  }

  it("a file that redirects to another origin", async () => {
    const elsewhere = await serve((_req, res, log) => send(res, log, 200, "PWNED"));
    servers.push(elsewhere);
    const { server, skipped } = await answerCase({
      "bad/SKILL.md": (_req, res, log) =>
        send(res, log, 302, "", { location: `${elsewhere.url}bad/SKILL.md` }),
    });
    expect(skipped.code).toBe("REMOTE_ERROR");
    expect(skipped.reason).toBe(
      `Remote fetch failed: ${server.url}bad/SKILL.md redirects to "${elsewhere.url}bad/SKILL.md", outside ${server.origin} (only same-origin redirects are followed)`,
    );
    expect(elsewhere.requests).toEqual([]);
  });

  it("a cross-origin redirect followed by an injected fetch that ignores redirect: manual", async () => {
    const elsewhere = await serve((_req, res, log) => send(res, log, 200, "PWNED"));
    servers.push(elsewhere);
    const following: FetchLike = (url, init) => fetch(url, { ...init, redirect: "follow" });
    const { server, skipped } = await answerCase(
      {
        "bad/SKILL.md": (_req, res, log) =>
          send(res, log, 302, "", { location: `${elsewhere.url}bad/SKILL.md` }),
      },
      ["SKILL.md"],
      { fetch: following },
    );
    expect(skipped.reason).toBe(
      `Remote fetch failed: ${server.url}bad/SKILL.md was redirected to "${elsewhere.url}bad/SKILL.md", outside ${server.origin}`,
    );
  });

  it("a redirect loop", async () => {
    const { skipped } = await answerCase(loopRoutes);
    expect(skipped.code).toBe("REMOTE_ERROR");
    expect(skipped.reason).toMatch(
      /^Remote fetch failed: redirect loop: .*\/bad\/again redirects back to .*\/bad\/SKILL\.md$/,
    );
  });

  it("a redirect chain longer than five hops", async () => {
    const routes: Record<string, Handler> = {};
    for (let i = 0; i < 7; i++) {
      const from = i === 0 ? "bad/SKILL.md" : `bad/hop${i}`;
      routes[from] = (_req, res, log) => send(res, log, 302, "", { location: `/bad/hop${i + 1}` });
    }
    const { skipped } = await answerCase(routes);
    expect(skipped.reason).toMatch(/redirects more than 5 times$/);
  });

  it("a 10 MB file against a 1 MB limit, announced by Content-Length", async () => {
    const { skipped } = await answerCase({ "bad/SKILL.md": tenMbAnswer }, ["SKILL.md"], LIMITS);
    expect(skipped.code).toBe("LIMIT_EXCEEDED");
    expect(skipped.reason).toMatch(
      /bad\/SKILL\.md announces 10\.0 MiB, over the limit of 1\.0 MiB \(maxFileBytes\)$/,
    );
  });

  it("a 10 MB file against a 1 MB limit, streamed without Content-Length: stopped while streaming", async () => {
    let written = 0;
    let closed = false;
    const { skipped } = await answerCase(
      {
        "bad/SKILL.md": async (_req, res) => {
          res.writeHead(200, { "content-type": "text/markdown" });
          res.on("close", () => {
            closed = true;
          });
          const chunk = Buffer.alloc(64 * 1024, 0x61);
          while (written < 10 * 1024 * 1024 && !closed) {
            written += chunk.length;
            if (!res.write(chunk)) {
              await new Promise<void>((resolve) => {
                const done = () => {
                  res.off("drain", done).off("close", done);
                  resolve();
                };
                res.on("drain", done).on("close", done);
              });
            }
          }
          res.end();
        },
      },
      ["SKILL.md"],
      { maxFileBytes: 1024 * 1024 },
    );
    expect(skipped.code).toBe("LIMIT_EXCEEDED");
    expect(skipped.reason).toMatch(/sent more than 1\.0 MiB, over the limit of 1\.0 MiB \(maxFileBytes\)$/);
    await until(() => closed);
    expect(written).toBeLessThan(10 * 1024 * 1024);
  });

  it("a server that stalls mid-body", async () => {
    const { skipped } = await answerCase({ "bad/SKILL.md": stallAnswer }, ["SKILL.md"], LIMITS);
    expect(skipped.code).toBe("REMOTE_ERROR");
    expect(skipped.reason).toMatch(/bad\/SKILL\.md timed out after 1000 ms \(stalled after 10 bytes\)$/);
  });

  it("a body shorter than its Content-Length", async () => {
    const { skipped } = await answerCase({ "bad/SKILL.md": shortAnswer });
    expect(skipped.code).toBe("INTEGRITY_ERROR");
    // node-fetch may drop the bytes it buffered when the connection fails, so the count varies.
    expect(skipped.reason).toMatch(/bad\/SKILL\.md ended after \d+ of 100 bytes \(Content-Length\)/);
  });

  it("a file that answers 500", async () => {
    const { skipped } = await answerCase({ "bad/SKILL.md": errorAnswer });
    expect(skipped).toMatchObject({ code: "HTTP_ERROR" });
  });

  it("none of them damages the previous copy of the skill", async () => {
    const answers: Record<string, Record<string, Handler>> = {
      loop: loopRoutes,
      "10 MB": { "bad/SKILL.md": tenMbAnswer },
      stall: { "bad/SKILL.md": stallAnswer },
      short: { "bad/SKILL.md": shortAnswer },
      500: { "bad/SKILL.md": errorAnswer },
    };
    let answer: Record<string, Handler> = {
      "bad/SKILL.md": (_req, res, log) => send(res, log, 200, skillMd("bad")),
    };
    const routes = new Proxy({} as Record<string, Handler>, { get: (_t, key: string) => answer[key] });
    const server = await hostileServer(
      () => ({ skills: [...GOOD_ENTRIES, { name: "bad", files: ["SKILL.md"] }] }),
      routes,
    );
    const first = await pull(server.index, { cacheDir });
    expect(first.files).toHaveLength(3);
    const before = await tree(root);
    for (const [title, routesNow] of Object.entries(answers)) {
      answer = routesNow;
      const result = await pull(server.index, { cacheDir, ...LIMITS });
      expect(result.files, title).toEqual(first.files);
      expect(result.skipped[0]?.reason, title).toMatch(/; the previous copy was kept$/);
      expect(await tree(root), title).toEqual(before);
      expect(await readFile(join(first.dir, "bad", "SKILL.md"), "utf8"), title).toBe(skillMd("bad"));
    }
  });
});

describe("hostile indexes", () => {
  const bodies: [string, string, string][] = [
    ["invalid JSON", '{"skills": [', "is not valid JSON"],
    ["an array", "[]", 'is not a skill index: expected an object with a "skills" list, found a list []'],
    ["null", "null", 'is not a skill index: expected an object with a "skills" list, found null null'],
    [
      "JSON nested 100,000 levels deep",
      `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
      'is not a skill index: expected an object with a "skills" list, found a list […]',
    ],
    [
      "skills as an object",
      '{"skills": {"a": {"files": ["SKILL.md"]}}}',
      'is not a skill index: expected an object with a "skills" list, found an object whose "skills" is a mapping',
    ],
  ];

  it.each(bodies)(
    "%s: REMOTE_ERROR without a cache, the cached copy with one",
    async (_title, body, message) => {
      let hostile = true;
      const server = await serve((req, res, log) => {
        const path = (req.url ?? "/").slice(1);
        if (path === "index.json") {
          return send(res, log, 200, hostile ? body : JSON.stringify({ skills: GOOD_ENTRIES }));
        }
        return send(res, log, 200, GOOD[path] ?? "PWNED");
      });
      servers.push(server);

      const error = await pull(server.index, { cacheDir }).catch((e: unknown) => e);
      expect(SkillError.isInstance(error) && error.code).toBe("REMOTE_ERROR");
      expect((error as Error).message).toContain(`${server.url}index.json ${message}`);
      expect(await tree(root)).toEqual([
        "home/",
        "home/.cache/",
        "home/.cache/skill/",
        `${CACHE}/`,
        `${CACHE}/${urlToDirName(server.index)}/`,
      ]);

      hostile = false;
      const good = await pull(server.index, { cacheDir });
      hostile = true;
      const cached = await pull(server.index, { cacheDir });
      expect(cached).toEqual({ ...good, fromCache: true, changed: [] });
      await expectOnlyGoodSkills(server);
    },
  );

  it("an index that redirects to another origin", async () => {
    const elsewhere = await serve((_req, res, log) => send(res, log, 200, JSON.stringify({ skills: [] })));
    servers.push(elsewhere);
    const server = await serve((_req, res, log) =>
      send(res, log, 301, "", { location: `${elsewhere.url}index.json` }),
    );
    servers.push(server);
    const error = await pull(server.index, { cacheDir }).catch((e: unknown) => e);
    expect(SkillError.isInstance(error) && error.code).toBe("REMOTE_ERROR");
    expect((error as Error).message).toContain(`outside ${server.origin}`);
    expect(elsewhere.requests).toEqual([]);
  });

  it("10,000 entries, nearly all hostile, neither blow up nor hang", async () => {
    const tricks = [
      (i: number) => ({ name: `../e${i}`, files: ["SKILL.md"] }),
      (i: number) => ({ name: `e${i}`, files: ["SKILL.md", `../../e${i}`] }),
      (i: number) => ({ name: `e${i}`, files: [`README${i}.md`] }),
      () => ({ name: "good-one", files: ["SKILL.md"] }),
      (i: number) => ({ name: `e${i}`, files: "SKILL.md" }),
      (i: number) => i,
    ];
    const skills: unknown[] = [...GOOD_ENTRIES];
    for (let i = 0; skills.length < 10_000; i++)
      skills.push((tricks[i % tricks.length] as (i: number) => unknown)(i));
    const server = await hostileServer(() => ({ skills }));

    const result = await pull(server.index, { cacheDir });

    expect(result.files).toHaveLength(2);
    expect(result.skipped).toHaveLength(9_998);
    await expectOnlyGoodSkills(server);
  }, 20_000);
});
