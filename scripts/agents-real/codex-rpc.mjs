// What the comparison scripts send Codex's `app-server` on stdin: JSON-RPC lines that start a
// session as `client` and ask for the skills of `cwd` (the answer is the message with id 2).

/** The request lines, one JSON message a line. */
export function codexSkillsListInput(cwd, client) {
  return [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { clientInfo: { name: client, version: "0" } } },
    { jsonrpc: "2.0", method: "initialized" },
    { jsonrpc: "2.0", id: 2, method: "skills/list", params: { cwds: [cwd] } },
  ]
    .map((m) => `${JSON.stringify(m)}\n`)
    .join("");
}
