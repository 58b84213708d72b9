// A git smart-HTTP server on 127.0.0.1 for the interop run: serves every repository under
// `root` through `git http-backend`, so clients clone http://127.0.0.1:PORT/<name>.git
// (shallow clones included) without the network.
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { join } from "node:path";

const backend = join(
  spawnSync("git", ["--exec-path"], { encoding: "utf8" }).stdout.trim(),
  "git-http-backend",
);

export function serveGit(root) {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const cgi = spawn(backend, [], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? "GET",
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        ...(req.headers["content-encoding"]
          ? { HTTP_CONTENT_ENCODING: req.headers["content-encoding"] }
          : {}),
        ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: req.headers["git-protocol"] } : {}),
        REMOTE_ADDR: "127.0.0.1",
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let sent = false;
    cgi.stdout.on("data", (chunk) => {
      if (sent) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      let status = 200;
      for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
        const at = line.indexOf(":");
        const key = line.slice(0, at).trim();
        const value = line.slice(at + 1).trim();
        if (key.toLowerCase() === "status") status = Number.parseInt(value, 10);
        else res.setHeader(key, value);
      }
      res.writeHead(status);
      sent = true;
      res.write(head.subarray(end + 4));
    });
    cgi.on("close", () => res.end());
    cgi.on("error", () => {
      res.writeHead(500);
      res.end();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}
