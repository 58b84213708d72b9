import MiniSearch from "minisearch";
import { describe, expect, it } from "vitest";
import { Postings } from "./postings.js";
import { insertDocuments, insertTerms, termTreeReachable } from "./term-tree.js";

describe("term-tree.ts, the one reach past MiniSearch's public API", () => {
  it("finds MiniSearch's term tree and document maps where it expects them", () => {
    // Failing here means the installed MiniSearch no longer keeps its terms in `_index` as a tree
    // of Maps of Maps, or its documents in `_documentIds`, `_idToShortId` and `_fieldLength`:
    // builds still work (through loadJS), but slower. See term-tree.ts.
    expect(
      termTreeReachable(),
      "MiniSearch's protected `_index` and document maps (see src/term-tree.ts)",
    ).toBe(true);
  });

  it("puts terms and documents there that MiniSearch searches like its own", () => {
    const options = { fields: ["text"], autoVacuum: false };
    const added = new MiniSearch<{ id: string; text: string }>(options);
    added.addAll([
      { id: "a", text: "alpha beta beta" },
      { id: "b", text: "beta" },
    ]);
    const inserted = MiniSearch.loadJS<{ id: string; text: string }>(
      {
        documentCount: 2,
        nextId: 2,
        documentIds: {},
        fieldIds: { text: 0 },
        fieldLength: {},
        averageFieldLength: [1.5],
        storedFields: {},
        index: [],
        serializationVersion: 2,
      },
      options,
    );
    const postings = (ids: number[], counts: number[]) =>
      new Map([[0, new Postings(Int32Array.from(ids), Int32Array.from(counts))]]);
    insertDocuments(inserted, ["a", "b"], [[2], [1]]);
    insertTerms(inserted, ["alpha", "beta"], [postings([0], [1]), postings([0, 1], [2, 1])]);
    for (const query of ["alpha", "beta", "alpha beta", "bet"]) {
      expect(inserted.search(query, { prefix: true }), query).toEqual(added.search(query, { prefix: true }));
    }
    expect(inserted.toJSON()).toEqual(added.toJSON());
    expect(inserted.has("b")).toBe(true);
    inserted.remove({ id: "b", text: "beta" });
    added.remove({ id: "b", text: "beta" });
    expect(inserted.toJSON()).toEqual(added.toJSON());
  });
});
