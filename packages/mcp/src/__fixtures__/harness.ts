import { mkdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, type McpServer, type Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { compareCodeUnits, type SkillSource } from "@skill/core";

/** Files of a skill tree: relative path → text or bytes; `{ link }` makes a symlink. */
export type Tree = Record<string, string | Uint8Array | { link: string }>;

export async function writeTree(root: string, tree: Tree): Promise<void> {
  for (const [rel, content] of Object.entries(tree)) {
    const path = join(root, rel);
    await mkdir(dirname(path), { recursive: true });
    if (typeof content === "object" && "link" in content) await symlink(content.link, path);
    else await writeFile(path, content);
  }
}

export function skillMd(name: string, description: string, body = `# ${name}\n\nSteps.\n`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

/** A source over the given SKILL.md paths, as discovery would return them. */
export function pathSource(id: string, paths: readonly string[]): SkillSource {
  const entries = [...paths].sort(compareCodeUnits).map((location) => ({ location }));
  return {
    id,
    async scan() {
      return { entries, dirs: [] };
    },
  };
}

/** The protocol eras a test can speak: 2026-07-28 (`server/discover`) and 2025-11-25 (`initialize`). */
export const ERAS = ["2026-07-28", "2025-11-25"] as const;
export type Era = (typeof ERAS)[number];

/**
 * A real SDK (v2) client connected to `server` through the SDK's in-memory transport, at the
 * given protocol version (default 2026-07-28, through the SDK's serving entry as `skill
 * serve-mcp` does; 2025-11-25 through the legacy handshake). `requests`, when given, receives
 * the method of every request the client sends.
 */
export async function connect(
  server: Server | McpServer,
  requests?: string[],
  era: Era = "2026-07-28",
): Promise<{ client: Client; close(): Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  if (requests) {
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (message, options) => {
      if ("method" in message && "id" in message) requests.push(message.method);
      return send(message, options);
    };
  }
  let handle: { close(): Promise<void> } | undefined;
  const client =
    era === "2026-07-28"
      ? new Client({ name: "test-client", version: "1.0.0" }, { versionNegotiation: { mode: { pin: era } } })
      : new Client({ name: "test-client", version: "1.0.0" });
  if (era === "2026-07-28") handle = serveStdio(() => server, { transport: serverSide });
  else await server.connect(serverSide);
  await client.connect(clientSide);
  if (client.getNegotiatedProtocolVersion() !== era) {
    throw new Error(`expected protocol ${era}, negotiated ${client.getNegotiatedProtocolVersion()}`);
  }
  return {
    client,
    async close() {
      await client.close();
      await (handle ? handle.close() : server.close());
    },
  };
}
