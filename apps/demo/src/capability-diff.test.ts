import { type Capabilities, diffCapabilities } from "@skill/audit";
import { describe, expect, it } from "vitest";
import { formatCapabilityDiff } from "./capability-diff.js";

const NONE: Capabilities = { tools: [], executables: [], commands: [], hosts: [], env: [], hooks: false };

describe("formatCapabilityDiff", () => {
  it("says nothing when nothing changed", () => {
    expect(formatCapabilityDiff(diffCapabilities(NONE, NONE))).toEqual([]);
  });

  it("puts what was gained on one line: a tool, a script and a host", () => {
    const before = { ...NONE, tools: ["Read"] };
    const after = {
      ...NONE,
      tools: ["Bash(*)", "Read"],
      executables: ["scripts/install.sh"],
      hosts: ["evil.example"],
    };
    expect(formatCapabilityDiff(diffCapabilities(before, after))).toEqual([
      "+ tool Bash(*), + exec scripts/install.sh, + host evil.example",
    ]);
  });

  it("puts what was lost on a second line, hooks included", () => {
    const before = { ...NONE, hosts: ["old.example"], hooks: true };
    const after = { ...NONE, env: ["TOKEN"], commands: ["git  status\n--short"] };
    expect(formatCapabilityDiff(diffCapabilities(before, after))).toEqual([
      "+ command git status --short, + env TOKEN",
      "- host old.example, - hooks",
    ]);
  });

  it("escapes control characters and caps the entries per line", () => {
    const after = { ...NONE, hosts: ["a.example", "b.example", "c.example"], tools: ["Bash(\u001b[2J)"] };
    expect(formatCapabilityDiff(diffCapabilities(NONE, after), { max: 2 })).toEqual([
      "+ tool Bash(\\u001b[2J), + host a.example, (2 more)",
    ]);
  });
});
