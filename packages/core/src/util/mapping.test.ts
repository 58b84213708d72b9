import { describe, expect, it } from "vitest";
import { isMapping } from "../index.js";

describe("isMapping", () => {
  it("takes the plain objects JSON, YAML and object literals give", () => {
    expect(isMapping({})).toBe(true);
    expect(isMapping(JSON.parse('{"a":{"b":1}}'))).toBe(true);
    expect(isMapping(Object.create(null))).toBe(true);
    expect(isMapping(Object.freeze({ a: 1 }))).toBe(true);
  });

  it("refuses null, lists, scalars and class instances (a YAML timestamp is a Date)", () => {
    for (const value of [
      null,
      undefined,
      [],
      [1],
      "a",
      1,
      true,
      new Date(0),
      new Map(),
      /x/,
      new (class {})(),
    ]) {
      expect(isMapping(value), String(value)).toBe(false);
    }
  });
});
