// A small MCP server over stdio for the CLI's tests: the 2025 handshake, and one skill `demo`
// over SEP-2640 (`skills/list`, `resources/read`), written by hand so a test can make it
// misbehave. Flags:
//   --starts FILE   append a line to FILE each time it starts
//   --helper FILE   first start a process that holds this server's stdout and lives on (a
//                   helper the server forgets), and append that process's id to FILE
//   --no-head       list the skill without its frontmatter: the CLI reads it while loading
//   --fail-read     answer every resources/read with an error
//   --hang-list     never answer skills/list
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const value = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

if (value("--starts")) appendFileSync(value("--starts"), `${process.pid}\n`);
if (value("--helper")) {
  const helper = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", "mcp-server-helper"], {
    stdio: ["ignore", "inherit", "ignore"],
  });
  helper.unref();
  appendFileSync(value("--helper"), `${helper.pid}\n`);
}

const uri = "skill://fixture/demo/SKILL.md";
const text = "---\nname: demo\ndescription: A demo skill served by a test server\n---\n# Demo\n\nDo it.\n";
const frontmatter = { name: "demo", description: "A demo skill served by a test server" };
const resource = {
  uri,
  digest: `sha256:${createHash("sha256").update(text).digest("hex")}`,
  size: Buffer.byteLength(text),
};

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);

function answer(request) {
  const { id, method } = request;
  if (method === "initialize") {
    const serverInfo = { name: "fixture", version: "1.0.0" };
    return send({
      id,
      result: { protocolVersion: "2025-11-25", capabilities: { resources: {} }, serverInfo },
    });
  }
  if (method === "skills/list") {
    if (flag("--hang-list")) return;
    const skill = { uri, resources: [resource], ...(flag("--no-head") ? {} : { frontmatter }) };
    return send({ id, result: { skills: [skill] } });
  }
  if (method === "resources/read") {
    if (flag("--fail-read")) return send({ id, error: { code: -32603, message: `Could not read "${uri}"` } });
    return send({ id, result: { contents: [{ uri, mimeType: "text/markdown", text }] } });
  }
  if (id !== undefined) send({ id, error: { code: -32601, message: `Method not found: ${method}` } });
}

createInterface({ input: process.stdin })
  .on("line", (line) => answer(JSON.parse(line)))
  .on("close", () => process.exit(0));
