import { join } from "node:path";
import { type Diagnostic, type Logger, SkillService } from "@skill/core";
import { digestOf, type Served, send, serve, staticFiles } from "@skill/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rejection, skillMd, tempDir } from "../test/server.js";
import { SCHEMA_V0_2 } from "./manifest.js";
import { pull } from "./pull.js";
import { remoteSource } from "./remote-source.js";
import { verifyCache } from "./verify-cache.js";

const SECRET = "hunter2-SECRET";

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

/** A logger that keeps every line and every field it receives, as one text to search. */
function recordingLogger(): Logger & { text(): string } {
  const lines: string[] = [];
  return {
    text: () => lines.join("\n"),
    warn: (message, fields) => lines.push(message, JSON.stringify(fields ?? {})),
    debug: (message, fields) => lines.push(message, JSON.stringify(fields ?? {})),
  };
}

/** Everything an error says, its causes included. */
function allText(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, i = 0; e instanceof Error && i < 10; e = e.cause, i++) {
    parts.push(e.message, JSON.stringify({ ...e }));
  }
  return parts.join("\n");
}

describe("no credential in a URL reaches a message or a log line", () => {
  it("a password in the pack URL: INVALID_URL says so without echoing it", async () => {
    const logger = recordingLogger();
    const error = await rejection(pull(`https://me:${SECRET}@example.com/skills/`, { cacheDir, logger }));
    expect(error.code).toBe("INVALID_URL");
    expect(error.message).toBe(
      'Invalid URL: "https://***@example.com/skills/" holds credentials; leave them out of the URL and pass them in the pull\'s `headers`, keyed by origin ("https://example.com")',
    );
    expect(allText(error)).not.toContain(SECRET);
    expect(logger.text()).not.toContain(SECRET);
  });

  it("a password in an unparseable URL is not echoed either", async () => {
    const error = await rejection(pull(`http://me:${SECRET}@[bad/`, { cacheDir }));
    expect(error.code).toBe("INVALID_URL");
    expect(allText(error)).not.toContain(SECRET);
  });

  it("a token in the index query: refused connection, HTTP error and cached copy say nothing of it", async () => {
    let mode: "ok" | "500" = "ok";
    const server = await start((req, res, log) => {
      if (mode === "500") return send(res, log, 500, `you sent ${req.url}`);
      return staticFiles(
        new Map([
          ["index.json", JSON.stringify({ skills: [{ name: "a", files: ["SKILL.md"] }] })],
          ["a/SKILL.md", skillMd("a")],
        ]),
      )(req, res, log);
    });
    const url = `${server.index}?token=${SECRET}`;
    const logger = recordingLogger();
    await pull(url, { cacheDir, logger });
    mode = "500";
    const served = await pull(url, { cacheDir, logger });
    expect(served.fromCache).toBe(true);
    expect(logger.text()).toContain("serving the copy cached at");
    expect(logger.text()).toContain("?token=***");
    expect(logger.text()).not.toContain(SECRET);

    const other = `${server.origin}/other.json?token=${SECRET}`;
    const failed = await rejection(pull(other, { cacheDir, logger }));
    expect(failed.code).toBe("HTTP_ERROR");
    expect(failed.message).toContain("/other.json?token=***");
    expect(allText(failed)).not.toContain(SECRET);

    await server.close();
    const refused = await rejection(pull(other, { cacheDir, logger }));
    expect(refused.code).toBe("REMOTE_ERROR");
    expect(allText(refused)).not.toContain(SECRET);
    expect(logger.text()).not.toContain(SECRET);
  });

  it("a signed artifact URL that fails: the skipped reason and the warning leave its signature out", async () => {
    const body = skillMd("a");
    const server = await start((req, res, log) => {
      if (req.url === "/index.json") {
        const skills = [
          { name: "a", type: "skill-md", url: `a.md?X-Amz-Signature=${SECRET}`, digest: digestOf(body) },
        ];
        return send(res, log, 200, JSON.stringify({ $schema: SCHEMA_V0_2, skills }));
      }
      return send(res, log, 403, `denied ${req.url}`);
    });
    const logger = recordingLogger();
    const events: unknown[] = [];
    const result = await pull(server.index, { cacheDir, logger, onProgress: (e) => events.push(e) });
    expect(result.skipped).toHaveLength(1);
    expect(result.skipped[0]?.reason).toContain("a.md?X-Amz-Signature=***");
    expect(JSON.stringify(result.skipped)).not.toContain(SECRET);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(logger.text()).not.toContain(SECRET);
  });

  it("remoteSource: diagnostics and the scan's error leave the password out", async () => {
    const server = await start(staticFiles(new Map([["index.json", '{"skills":[]}']])));
    const bad = `http://me:${SECRET}@127.0.0.1:9/skills/`;
    const service = new SkillService({
      sources: [remoteSource([bad, `${server.index}?token=${SECRET}`], { cacheDir })],
    });
    const report = await service.discoverAndLoad();
    const diagnostics: readonly Diagnostic[] = report.diagnostics;
    expect(diagnostics.map((d) => d.code)).toContain("pack-unavailable");
    expect(JSON.stringify(diagnostics)).not.toContain(SECRET);

    const alone = new SkillService({ sources: [remoteSource([bad], { cacheDir })] });
    const failed = await alone.discoverAndLoad();
    expect(failed.failed).toHaveLength(1);
    expect(allText(failed.failed[0]?.error)).not.toContain(SECRET);
    expect(JSON.stringify(failed.diagnostics)).not.toContain(SECRET);
  });

  it("verifyCache: a bad URL is refused without echoing its password", async () => {
    const error = await rejection(verifyCache(cacheDir, `ftp://me:${SECRET}@example.com/`));
    expect(error.code).toBe("INVALID_URL");
    expect(allText(error)).not.toContain(SECRET);
  });
});
