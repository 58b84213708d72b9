import { PassThrough } from "node:stream";
import { Server } from "@modelcontextprotocol/server";
import { SkillError, SkillService } from "@skill/core";
import { describe, expect, it } from "vitest";
import { createSkillsServer, registerSkills } from "./server.js";
import { mcpSource } from "./source.js";
import { mcpStdioSource, serveStdio } from "./stdio.js";

const client = { request: async () => ({ skills: [] }) };
const service = new SkillService();
const server = () => new Server({ name: "t", version: "1" }, { capabilities: {} });

/** What a call threw, for matching: its code, field and message; `undefined` when it threw no SkillError. */
async function thrown(call: () => unknown) {
  try {
    await call();
  } catch (error) {
    if (!SkillError.isInstance(error)) return { notSkillError: String(error) };
    return { code: error.code, field: error.field, message: error.message };
  }
  return undefined;
}

describe("options @skill/mcp refuses", () => {
  it.each([
    ["timeoutMs", Number.NaN, "found NaN"],
    ["timeoutMs", -5, "found -5"],
    ["timeoutMs", "5000", 'found a string "5000"'],
    ["maxSkills", 1.5, "found 1.5"],
    ["maxSkills", 0, "found 0"],
    ["maxPages", null, "found null"],
  ])(
    "mcpSource and mcpStdioSource: %s = %o is INVALID_FIELD, saying what was expected and found",
    async (name, value, found) => {
      const options = { [name]: value } as never;
      for (const [fn, call] of [
        ["mcpSource", () => mcpSource(client, options)],
        ["mcpStdioSource", () => mcpStdioSource(process.execPath, [], options)],
      ] as const) {
        expect(await thrown(call)).toEqual({
          code: "INVALID_FIELD",
          field: name,
          message: `${fn}: ${name} must be a whole number >= 1, ${found}`,
        });
      }
    },
  );

  it.each([
    ["ttlMs", Number.NaN, "a whole number >= 0", "found NaN"],
    ["ttlMs", -1, "a whole number >= 0", "found -1"],
    ["ttlMs", "60", "a whole number >= 0", 'found a string "60"'],
    ["recheckMs", -1, "a whole number >= 0", "found -1"],
    ["recheckMs", 0.5, "a whole number >= 0", "found 0.5"],
    ["pageSize", 0, "a whole number >= 1", "found 0"],
    ["maxFiles", Number.POSITIVE_INFINITY, "a whole number >= 1", "found Infinity"],
    ["maxFileBytes", [1], "a whole number >= 1", "found a list [1]"],
    ["cacheScope", "shared", '"public" or "private"', 'found a string "shared"'],
    ["prefix", "../x", "URI path segments", 'found a string "../x"'],
  ])(
    "registerSkills, createSkillsServer and serveStdio: %s = %o is INVALID_FIELD",
    async (name, value, expected, found) => {
      const options = { [name]: value } as never;
      const stdin = new PassThrough();
      for (const call of [
        () => registerSkills(server(), service, options),
        () => createSkillsServer(service, options),
        () => serveStdio(service, { ...(options as object), stdin, stdout: new PassThrough() }),
      ]) {
        const error = await thrown(call);
        expect(error).toMatchObject({ code: "INVALID_FIELD", field: name });
        expect(error?.message).toMatch(new RegExp(`^registerSkills: ${name} must be `));
        expect(error?.message).toContain(expected);
        expect(error?.message).toContain(found);
      }
      stdin.end();
    },
  );

  it("quotes a long wrong value truncated, not whole", async () => {
    const error = await thrown(() =>
      registerSkills(server(), service, { prefix: `../${"x".repeat(100_000)}` }),
    );
    expect(error?.message?.length).toBeLessThan(300);
  });
});
