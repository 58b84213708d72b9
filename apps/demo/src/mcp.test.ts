import { describe, expect, it } from "vitest";
import { serverLabel, splitCommand, uniqueLabel } from "./mcp.js";

describe("serverLabel", () => {
  it("names a server by what its launcher starts, short enough to prefix a skill's name", () => {
    const label = (line: string) => serverLabel(splitCommand(line));
    expect(label("npx -y docs-mcp-server")).toBe("docs-mcp-server");
    expect(label("npx -y @acme/docs-mcp@1.2.0 --stdio")).toBe("docs-mcp");
    expect(label("uvx mcp-server-fetch")).toBe("mcp-server-fetch");
    expect(label("uv tool run mcp-server-git --repository .")).toBe("mcp-server-git");
    expect(label("python3 -m weather_server")).toBe("weather_server");
    expect(label("docker run -i --rm ghcr.io/acme/skills-server")).toBe("skills-server");
    expect(label("skill serve-mcp --agent review")).toBe("skill");
    expect(label("node '/home/me/skill kit/dist/cli.js' serve-mcp --cwd project")).toBe("cli-serve-mcp");
    expect(label("/usr/local/bin/skills-server.js")).toBe("skills-server");
    expect(label("npx")).toBe("mcp");
  });
});

describe("uniqueLabel", () => {
  it("numbers a label a server of the run already has until it is unique, though a label may end in -2 itself", () => {
    const seen = new Set<string>();
    expect(["foo", "foo", "foo-2", "foo"].map((l) => uniqueLabel(l, seen))).toEqual([
      "foo",
      "foo-2",
      "foo-2-2",
      "foo-3",
    ]);
  });
});
