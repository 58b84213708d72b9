import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isDigest, sha256Digest } from "./digest.js";

const EMPTY = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

describe("sha256Digest", () => {
  it("is sha256: and the lower-case hex of the bytes", () => {
    expect(sha256Digest(new Uint8Array())).toBe(EMPTY);
    const bytes = new Uint8Array([0, 1, 2, 255]);
    expect(sha256Digest(bytes)).toBe(`sha256:${createHash("sha256").update(bytes).digest("hex")}`);
  });

  it("hashes a string as its UTF-8 bytes", () => {
    expect(sha256Digest("")).toBe(EMPTY);
    expect(sha256Digest("café ✓")).toBe(sha256Digest(new TextEncoder().encode("café ✓")));
  });
});

describe("isDigest", () => {
  it("accepts exactly what sha256Digest returns", () => {
    expect(isDigest(EMPTY)).toBe(true);
    expect(isDigest(sha256Digest("x"))).toBe(true);
  });

  it("refuses every other shape", () => {
    for (const value of [
      EMPTY.toUpperCase(),
      EMPTY.replace("e3b0", "E3B0"),
      EMPTY.slice(7),
      EMPTY.slice(0, -1),
      `${EMPTY}0`,
      ` ${EMPTY}`,
      `${EMPTY}\n`,
      `sha512:${EMPTY.slice(7)}`,
      "",
      undefined,
      null,
      42,
      { digest: EMPTY },
    ]) {
      expect(isDigest(value), String(value)).toBe(false);
    }
  });
});
