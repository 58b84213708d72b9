// A tiny static file server on 127.0.0.1 for the demo and the end-to-end tests:
// serves one folder, never anything outside it.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer } from "node:http";
import { join, normalize, sep } from "node:path";

const TYPES = {
  ".json": "application/json",
  ".md": "text/markdown; charset=utf-8",
  ".gz": "application/gzip",
  ".zip": "application/zip",
};

/**
 * Serves `dir` on a free loopback port, under the path `mount` (default `/`, e.g.
 * `/.well-known/agent-skills/` to publish a pack as a site does); resolves to `{ url, close, requests }`.
 */
export async function serveDir(dir, mount = "/") {
  const root = normalize(dir + sep);
  const requests = [];
  const server = createServer(async (req, res) => {
    requests.push(req.url);
    const pathname = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    const path = pathname.startsWith(mount) ? normalize(join(root, pathname.slice(mount.length))) : "";
    const info = path.startsWith(root) ? await stat(path).catch(() => undefined) : undefined;
    if (!info?.isFile()) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    const ext = path.slice(path.lastIndexOf("."));
    res.writeHead(200, {
      "content-type": TYPES[ext] ?? "application/octet-stream",
      "content-length": info.size,
    });
    createReadStream(path).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
