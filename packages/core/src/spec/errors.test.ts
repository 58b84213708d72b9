import { describe, expect, it } from "vitest";
import { printable, quote, SkillError } from "./errors.js";

describe("SkillError", () => {
  it("carries a code, details and a cause", () => {
    const cause = new Error("EACCES");
    const error = new SkillError("HTTP_ERROR", "HTTP error: 404 for https://x/index.json", {
      url: "https://x/index.json",
      status: 404,
      cause,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("SkillError");
    expect(error.code).toBe("HTTP_ERROR");
    expect(error.status).toBe(404);
    expect(error.url).toBe("https://x/index.json");
    expect(error.cause).toBe(cause);
    expect(error.path).toBeUndefined();
    expect("path" in error).toBe(false);
  });

  it("isInstance sees the marker, not the class", () => {
    expect(SkillError.isInstance(new SkillError("ABORTED", "stop"))).toBe(true);
    expect(SkillError.isInstance(Object.assign(new Error("x"), { code: "ABORTED" }))).toBe(false);
    expect(SkillError.isInstance(null)).toBe(false);
    expect(SkillError.isInstance("SkillError")).toBe(false);
  });
});

describe("quote", () => {
  it("cuts long values and escapes control and bidi characters", () => {
    expect(quote("a".repeat(100), 10)).toBe(`"${"a".repeat(10)}…"`);
    expect(quote("red\u001b[31m\u009b2J\u202eevil")).toBe('"red\\u001b[31m\\u009b2J\\u202eevil"');
    expect(quote([1, "x"])).toBe('[1,"x"]');
    let deep: unknown[] = [];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(quote(deep)).toBe("[…]");
    expect(printable("tab\there \ud800 ok 😀")).toBe("tab\\u0009here \\ud800 ok 😀");
  });
});
