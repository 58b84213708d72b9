import { describe, expect, it } from "vitest";
import { diffCapabilities } from "./diff.js";
import type { Capabilities } from "./types.js";

const NONE: Capabilities = { tools: [], executables: [], commands: [], hosts: [], env: [], hooks: false };

function caps(partial: Partial<Capabilities>): Capabilities {
  return { ...NONE, ...partial };
}

describe("diffCapabilities", () => {
  it("reports nothing for equal capabilities", () => {
    const a = caps({ tools: ["Read"], hosts: ["a.example"], hooks: true });
    const diff = diffCapabilities(a, caps({ tools: ["Read"], hosts: ["a.example"], hooks: true }));
    expect(diff.changed).toBe(false);
    expect(diff.gained).toEqual(NONE);
    expect(diff.lost).toEqual(NONE);
  });

  it("names what an update gained: a tool, a script and a host", () => {
    const before = caps({ tools: ["Read"], hosts: ["docs.example"] });
    const after = caps({
      tools: ["Bash(*)", "Read"],
      executables: ["scripts/install.sh"],
      hosts: ["docs.example", "evil.example"],
    });
    const diff = diffCapabilities(before, after);
    expect(diff.changed).toBe(true);
    expect(diff.gained).toEqual(
      caps({ tools: ["Bash(*)"], executables: ["scripts/install.sh"], hosts: ["evil.example"] }),
    );
    expect(diff.lost).toEqual(NONE);
  });

  it("names what was lost, per kind, and hooks turning off", () => {
    const before = caps({ commands: ["git status"], env: ["HOME", "TOKEN"], hooks: true });
    const after = caps({ env: ["HOME"] });
    const diff = diffCapabilities(before, after);
    expect(diff.changed).toBe(true);
    expect(diff.gained).toEqual(NONE);
    expect(diff.lost).toEqual(caps({ commands: ["git status"], env: ["TOKEN"], hooks: true }));
  });

  it("marks hooks gained when they appear, and sorts and dedupes entries", () => {
    const diff = diffCapabilities(
      NONE,
      caps({ hosts: ["b.example", "a.example", "b.example"], hooks: true }),
    );
    expect(diff.gained.hooks).toBe(true);
    expect(diff.lost.hooks).toBe(false);
    expect(diff.gained.hosts).toEqual(["a.example", "b.example"]);
  });

  it("compares entries exactly: a changed tool pattern is one lost and one gained", () => {
    const diff = diffCapabilities(caps({ tools: ["Bash(git:*)"] }), caps({ tools: ["Bash(*)"] }));
    expect(diff.gained.tools).toEqual(["Bash(*)"]);
    expect(diff.lost.tools).toEqual(["Bash(git:*)"]);
  });
});
