import { mkdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
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

/**
 * A real SDK client connected to `server` through the SDK's in-memory transport. `requests`,
 * when given, receives the method of every request as the server receives it.
 */
export async function connect(
  server: Server | McpServer,
  requests?: string[],
): Promise<{ client: Client; close(): Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await server.connect(serverSide);
  if (requests) {
    const deliver = serverSide.onmessage;
    serverSide.onmessage = (message, extra) => {
      if ("method" in message && "id" in message) requests.push(message.method);
      deliver?.(message, extra);
    };
  }
  await client.connect(clientSide);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}
