import { describe, expect, it } from "vitest";
import { SkillError } from "../spec/errors.js";
import { errnoOf } from "./errno.js";
import { errorMessage } from "./error-text.js";

describe("errorMessage", () => {
  it("is the message of an Error, of any subclass", () => {
    expect(errorMessage(new Error("boom"))).toBe("boom");
    expect(errorMessage(new TypeError("bad type"))).toBe("bad type");
    expect(errorMessage(new SkillError("NOT_FOUND", "Skill not found: pdf"))).toBe("Skill not found: pdf");
  });

  it("is the value as text otherwise", () => {
    expect(errorMessage("plain")).toBe("plain");
    expect(errorMessage(42)).toBe("42");
    expect(errorMessage(undefined)).toBe("undefined");
    expect(errorMessage(null)).toBe("null");
    expect(errorMessage({ message: "not an Error" })).toBe("[object Object]");
  });
});

describe("errnoOf", () => {
  it("is the string code of a system error", () => {
    const error = Object.assign(new Error("ENOENT: no such file"), { code: "ENOENT" });
    expect(errnoOf(error)).toBe("ENOENT");
  });

  it("is undefined when there is no string code", () => {
    expect(errnoOf(new Error("no code"))).toBeUndefined();
    expect(errnoOf(Object.assign(new Error("rpc"), { code: -32600 }))).toBeUndefined();
    expect(errnoOf(undefined)).toBeUndefined();
    expect(errnoOf(null)).toBeUndefined();
    expect(errnoOf("ENOENT")).toBeUndefined();
  });
});
