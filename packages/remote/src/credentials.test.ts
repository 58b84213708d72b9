import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { digestOf, type Served, send, serve, skillBody, staticFiles, tarGz } from "@skill/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rejection, skillMd, tempDir } from "../test/server.js";
import type { FetchLike } from "./http.js";
import { SCHEMA_V0_2 } from "./manifest.js";
import { pull } from "./pull.js";

const SECRET_A = "Bearer SECRET-FOR-A";

let root: string;
let cacheDir: string;
let cleanup: () => Promise<void>;
const servers: Served[] = [];

beforeEach(async () => {
  ({ path: root, cleanup } = await tempDir());
  cacheDir = join(root, "cache");
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await cleanup();
});

async function start(handler: Parameters<typeof serve>[0]): Promise<Served> {
  const server = await serve(handler);
  servers.push(server);
  return server;
}

/**
 * Origin A serves the index, an archive, and a redirect to B; origin B (another port, so another
 * origin) serves a digest-pinned SKILL.md and the redirect's target.
 */
async function twoOrigins(): Promise<{ a: Served; b: Served }> {
  const cdn = skillMd("cdn");
  const hop = skillMd("hop");
  const archive = tarGz([{ name: "SKILL.md", body: skillBody("local") }]);
  const b = await start(
    staticFiles(
      new Map<string, string | Buffer>([
        ["cdn/SKILL.md", cdn],
        ["hop/SKILL.md", hop],
      ]),
    ),
  );
  const a = await start((req, res, log) => {
    if (req.url === "/go/hop") return send(res, log, 302, "", { location: `${b.url}hop/SKILL.md` });
    const skills = [
      { name: "cdn", type: "skill-md", url: `${b.url}cdn/SKILL.md`, digest: digestOf(cdn) },
      { name: "hop", type: "skill-md", url: "go/hop", digest: digestOf(hop) },
      { name: "local", type: "archive", url: "local.tar.gz", digest: digestOf(archive) },
    ];
    return staticFiles(
      new Map<string, string | Buffer>([
        ["index.json", JSON.stringify({ $schema: SCHEMA_V0_2, skills })],
        ["local.tar.gz", archive],
      ]),
    )(req, res, log);
  });
  return { a, b };
}

describe("credentials stay with their origin", () => {
  it.each([
    ["node-fetch (the default)", undefined],
    ["the global fetch, passed as transport", globalThis.fetch as unknown as FetchLike],
  ])(
    "B never sees A's header: not for a pinned artifact, not after a redirect (%s)",
    async (_kind, fetch) => {
      const { a, b } = await twoOrigins();

      const result = await pull(a.index, {
        cacheDir,
        headers: { [a.origin]: { Authorization: SECRET_A }, [b.origin]: { "X-Cdn-Key": "for-b" } },
        ...(fetch ? { fetch } : {}),
      });

      expect(result.skipped).toEqual([]);
      expect(result.files.map((f) => f.split("/").at(-2))).toEqual(["cdn", "hop", "local"]);
      expect(await readFile(join(result.dir, "hop", "SKILL.md"), "utf8")).toBe(skillMd("hop"));
      // Every request to A carried A's header (the index, the archive, the redirect's first hop)…
      expect(a.requests.map((r) => [r.path, r.headers.authorization, r.headers["x-cdn-key"]]).sort()).toEqual(
        [
          ["/go/hop", SECRET_A, undefined],
          ["/index.json", SECRET_A, undefined],
          ["/local.tar.gz", SECRET_A, undefined],
        ],
      );
      // …and B got only its own, on the pinned artifact and on the redirect's second hop.
      expect(b.requests.map((r) => [r.path, r.headers.authorization, r.headers["x-cdn-key"]]).sort()).toEqual(
        [
          ["/cdn/SKILL.md", undefined, "for-b"],
          ["/hop/SKILL.md", undefined, "for-b"],
        ],
      );
    },
  );

  it("a fetch that follows redirects itself is refused for a hop that carried credentials", async () => {
    const { a } = await twoOrigins();
    const following: FetchLike = (url, init) =>
      globalThis.fetch(url, { ...init, redirect: "follow" }) as unknown as ReturnType<FetchLike>;

    const result = await pull(a.index, {
      cacheDir,
      headers: { [a.origin]: { authorization: SECRET_A } },
      fetch: following,
    });

    expect(result.skipped.map((s) => [s.name, s.code])).toEqual([["hop", "REMOTE_ERROR"]]);
    expect(result.skipped[0]?.reason).toContain("by the fetch itself, with the headers given for");
    expect(result.skipped[0]?.reason).not.toContain("SECRET");
  });

  it("without headers for an origin, nothing is added (the caller's fetch adds nothing either)", async () => {
    const { a, b } = await twoOrigins();
    await pull(a.index, { cacheDir, headers: { [b.origin]: { authorization: "Bearer FOR-B" } } });
    expect(a.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
    expect(b.requests.every((r) => r.headers.authorization === "Bearer FOR-B")).toBe(true);
  });

  it.each([
    [{ "https://example.com/skills/": {} }, '"https://example.com/skills/" is not an origin'],
    [{ "https://me:pw@example.com": {} }, '"https://***@example.com" is not an origin'],
    [{ "example.com": {} }, '"example.com" is not an origin'],
    [
      { "https://example.com": { "bad name": "x" } },
      '"bad name" (for "https://example.com") is not a header name',
    ],
    [{ "https://example.com": { authorization: "a\r\nx-injected: 1" } }, "must be a string on one line"],
    [{ "https://example.com": {}, "https://EXAMPLE.com:443": {} }, "names the origin"],
  ])("refuses headers %j, quoting no value", async (headers, message) => {
    const error = await rejection(pull("https://example.com/", { cacheDir, headers }));
    expect(error.code).toBe("INVALID_FIELD");
    expect(error.message).toContain(message);
    expect(error.message).not.toContain("pw");
    expect(error.message).not.toContain("injected");
  });
});
