import { describe, expect, it } from "vitest";
import { deepFreeze, firstDifference, jsonEqual, toJsonValue } from "./json-value.js";

function nestedLists(depth: number): unknown[] {
  const root: unknown[] = [];
  let node = root;
  for (let i = 0; i < depth; i++) {
    const child: unknown[] = [];
    node.push(child);
    node = child;
  }
  return root;
}

function depthOf(value: unknown): number {
  let depth = 0;
  let node = value;
  while (Array.isArray(node) && node.length > 0) {
    node = node[0];
    depth++;
  }
  return depth;
}

describe("toJsonValue", () => {
  it("turns dates into ISO strings and an invalid date into null", () => {
    expect(toJsonValue({ when: new Date(Date.UTC(2024, 0, 1)), bad: new Date(Number.NaN) })).toEqual({
      when: "2024-01-01T00:00:00.000Z",
      bad: null,
    });
    expect(toJsonValue(new Date(0))).toBe("1970-01-01T00:00:00.000Z");
  });

  it("turns bytes into base64, honouring a view's offset and length", () => {
    const bytes = Buffer.from("hello world");
    expect(toJsonValue({ b: bytes })).toEqual({ b: "aGVsbG8gd29ybGQ=" });
    const view = new Uint8Array(bytes.buffer, bytes.byteOffset + 6, 5);
    expect(toJsonValue(view)).toBe(Buffer.from("world").toString("base64"));
    expect(toJsonValue(new DataView(bytes.buffer, bytes.byteOffset, 5))).toBe("aGVsbG8=");
    expect(toJsonValue(new Uint8Array([1, 2, 3]).buffer)).toBe("AQID");
    expect(toJsonValue(new Uint16Array([0x0102]))).toBe(
      Buffer.from(new Uint16Array([0x0102]).buffer).toString("base64"),
    );
  });

  it("makes numbers JSON numbers", () => {
    expect(toJsonValue([1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])).toEqual([
      1,
      1.5,
      null,
      null,
      null,
    ]);
    expect(Object.is(toJsonValue(-0), 0)).toBe(true);
    expect(Object.is((toJsonValue({ z: -0 }) as { z: number }).z, 0)).toBe(true);
    expect(toJsonValue(12345678901234567890n)).toBe("12345678901234567890");
  });

  it("drops what JSON has no value for from mappings, and makes it null in lists", () => {
    const fn = () => 1;
    const sym = Symbol("s");
    const out = toJsonValue({ a: undefined, b: fn, c: sym, d: 1, e: [undefined, fn, sym, 2] });
    expect(out).toEqual({ d: 1, e: [null, null, null, 2] });
    expect(Object.keys(out as object)).toEqual(["d", "e"]);
    expect(toJsonValue(undefined)).toBeNull();
    // A hole in a list is a null, as JSON.stringify writes it.
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    expect(toJsonValue([1, , 3])).toEqual([1, null, 3]);
  });

  it("keeps keys in document order, __proto__ as an own key, without polluting prototypes", () => {
    const parsed = JSON.parse('{"z":1,"a":{"__proto__":{"polluted":true},"m":2},"b":3}');
    const out = toJsonValue(parsed) as Record<string, Record<string, unknown>>;
    expect(Object.keys(out)).toEqual(["z", "a", "b"]);
    expect(Object.keys(out.a as object)).toEqual(["__proto__", "m"]);
    expect(Object.hasOwn(out.a as object, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(out.a)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(out)).toBe(JSON.stringify(parsed));
  });

  it("copies, never returning or changing the input", () => {
    const input = { list: [{ x: 1 }], when: new Date(0) };
    const out = toJsonValue(input) as typeof input;
    expect(out).not.toBe(input);
    expect(out.list).not.toBe(input.list);
    expect(out.list[0]).not.toBe(input.list[0]);
    expect(input.when).toBeInstanceOf(Date);
  });

  it("matches a JSON round trip for JSON-like data", () => {
    const input = {
      name: "pdf",
      nested: { list: [1, "two", true, null, { deep: [[]] }], empty: {} },
      when: new Date(Date.UTC(2020, 5, 1, 12)),
    };
    expect(toJsonValue(input)).toEqual(JSON.parse(JSON.stringify(input)));
  });

  it("handles nesting far deeper than the stack allows", () => {
    const out = toJsonValue({ deep: nestedLists(50_000) }) as { deep: unknown[] };
    expect(depthOf(out.deep)).toBe(50_000);
  });

  it("expands shared aliases and replaces a recursive one with null", () => {
    const shared = { x: 1 };
    const out = toJsonValue({ a: shared, b: shared }) as { a: unknown; b: unknown };
    expect(out).toEqual({ a: { x: 1 }, b: { x: 1 } });
    const loop: unknown[] = [1];
    loop.push(loop);
    expect(toJsonValue({ loop })).toEqual({ loop: [1, null] });
  });
});

describe("jsonEqual", () => {
  it("ignores key order and compares lists in order", () => {
    expect(jsonEqual({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: [1, { b: "x" }] }, { a: [1, { b: "y" }] })).toBe(false);
  });

  it("tells kinds apart", () => {
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual({}, [])).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual("1", 1)).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(jsonEqual([1], [1, 2])).toBe(false);
    expect(jsonEqual({ a: null }, {})).toBe(false);
    expect(jsonEqual(0, -0)).toBe(true);
    expect(jsonEqual(null, null)).toBe(true);
  });

  it("compares deep nesting without a stack overflow", () => {
    expect(jsonEqual(nestedLists(50_000), nestedLists(50_000))).toBe(true);
    expect(jsonEqual(nestedLists(50_000), nestedLists(49_999))).toBe(false);
  });

  it("ends on cyclic values", () => {
    const a: unknown[] = [1];
    a.push(a);
    const b: unknown[] = [1];
    b.push(b);
    expect(jsonEqual(a, b)).toBe(true);
    const c: unknown[] = [2];
    c.push(c);
    expect(jsonEqual(a, c)).toBe(false);
  });
});

describe("firstDifference", () => {
  it("names the first top-level field that differs", () => {
    const head = { name: "pdf", description: "Read PDFs", metadata: { v: "1" } };
    expect(firstDifference(head, { ...head })).toBeUndefined();
    expect(
      firstDifference(head, { metadata: { v: "1" }, description: "Read PDFs", name: "pdf" }),
    ).toBeUndefined();
    expect(firstDifference(head, { ...head, description: "Write PDFs" })).toBe("description");
    expect(firstDifference(head, { ...head, metadata: { v: "2" } })).toBe("metadata");
    expect(firstDifference(head, { name: "pdf", description: "Read PDFs" })).toBe("metadata");
    expect(firstDifference(head, { ...head, license: "MIT" })).toBe("license");
    expect(firstDifference({ a: 1, b: 1 }, { a: 2, b: 2 })).toBe("a");
  });

  it("gives an empty name when a side is not a mapping", () => {
    expect(firstDifference([1], [1])).toBeUndefined();
    expect(firstDifference([1], { a: 1 })).toBe("");
    expect(firstDifference(null, {})).toBe("");
  });
});

describe("deepFreeze", () => {
  it("freezes every level and leaves bytes alone", () => {
    const value = deepFreeze({ a: { b: [{ c: 1 }] }, bytes: Buffer.from("x") });
    expect(Object.isFrozen(value.a.b[0])).toBe(true);
    expect(Object.isFrozen(value.a.b)).toBe(true);
    expect(Object.isFrozen(value.bytes)).toBe(false);
    expect(() => deepFreeze({ deep: nestedLists(100_000) })).not.toThrow();
  });
});
